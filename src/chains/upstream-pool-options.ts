import type { Logger } from 'pino';
import type { ChainKind, UpstreamConfig } from '../config/chain-settings.ts';
import type { CircuitBreakerOptions } from './circuit-breaker.ts';
import type { FinalitySettings } from './final-block.ts';
import type { UpstreamMetrics } from './upstream-metrics.ts';

/** What a pool of one network's upstreams is built from. */
export interface UpstreamPoolOptions {
  upstreams: readonly UpstreamConfig[];
  chain: string;
  network: string;
  kind?: ChainKind;
  /** The chain id every upstream must answer (EVM); default: the first upstream's, unchecked (tests). */
  chainId?: number;
  /** Solana: the genesis hash every upstream must answer (default: the first one's). */
  genesisHash?: string;
  /** Head poll interval; the chain's block time. */
  headPollMs: number;
  /** Blocks behind the best head beyond which an upstream gets no reads while others are caught up. Default 3. */
  maxLagBlocks?: number;
  /** Attempts per read, hedges included (at least one per upstream). Default 3. */
  maxAttempts?: number;
  breaker?: CircuitBreakerOptions;
  /** Hedge once the first attempt is slower than the upstream's p95, but never sooner than `floorMs`. */
  hedge?: { minSamples?: number; floorMs?: number };
  /** Shared by every pool of a process; default: a private registry (not exported). */
  metrics?: UpstreamMetrics;
  logger?: Logger;
  /**
   * Send eth_getLogs ranges that end near the tip with an `eth_blockNumber` witness, so a node (of a
   * load balancer) that lacks the range's end is caught: src/chains/head-witness.ts. Default false.
   */
  headWitness?: boolean;
  /** How the network decides its final block; default: depth 0 (no tags read). */
  finality?: FinalitySettings;
}
