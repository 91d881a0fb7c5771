import type { LogsWording } from './logs-range-cap.ts';
import type { PendingForm } from './pending-relay.ts';

/** Over the limit: `http` = HTTP 429 + Retry-After (Infura's documented form); `jsonrpc` = HTTP 200, error code 429 per call (Alchemy's words). */
export interface RateLimit {
  /** Calls per second refilled into a bucket that holds one second's worth (each batch element costs one). */
  rps: number;
  style: 'http' | 'jsonrpc';
  /** The Retry-After header (http style) and Infura's `backoff_seconds`. Default 1. */
  retryAfterS?: number;
}

export interface LogsRangeCap {
  /** The widest eth_getLogs block range served; how a range is measured is the provider's own (see logs-range-cap.ts). */
  max: number;
  wording: LogsWording;
}

/** geth's two ways of saying "that state is gone": before and after its path-based state scheme. */
export type PruneWording = 'missing-trie-node' | 'historical-state';

/** How the simulated node misbehaves. Every field is off in `honestBehaviour`; all combine. */
export interface SimBehaviour {
  /** A node still syncing or slow to import: its head is N blocks behind the real one (never below 0). */
  lagBlocks: number;
  /** A load balancer over two unsynced nodes: successive HTTP requests alternate honest / lagging by N. */
  alternate: { lagBlocks: number } | undefined;
  /** A provider's per-key throughput limit. */
  rateLimit: RateLimit | undefined;
  /** A provider that refuses eth_getLogs over more than `max` blocks, in its own words. */
  logsRangeCap: LogsRangeCap | undefined;
  /** A full (non-archive) node: state older than head - K is pruned (geth keeps 128 recent states). */
  pruneBelowBlocks: number | undefined;
  pruneWording: PruneWording;
  /** A frozen node (SIGSTOPped, GC-paused, deadlocked): connections accepted, nothing ever answered. */
  stall: boolean;
  /** A reverse proxy whose backend is down: nginx's HTML 502 page instead of JSON. */
  html502: boolean;
  /** A node of another chain behind a mislabelled URL: eth_chainId and net_version say this one. */
  chainId: number | undefined;
  /** A distant or overloaded node: every answer is this late. */
  latencyMs: number;
  /** The `newPendingTransactions` forms the node serves over WebSocket (pending-relay.ts); undefined: it refuses them all. */
  pendingForm: PendingForm | undefined;
}

export const honestBehaviour: Readonly<SimBehaviour> = Object.freeze({
  lagBlocks: 0,
  alternate: undefined,
  rateLimit: undefined,
  logsRangeCap: undefined,
  pruneBelowBlocks: undefined,
  pruneWording: 'missing-trie-node',
  stall: false,
  html502: false,
  chainId: undefined,
  latencyMs: 0,
  pendingForm: undefined,
});
