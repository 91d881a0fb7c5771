import type { Logger } from 'pino';
import type { ChainKind } from '../config/chain-settings.ts';
import { UpstreamError } from '../core/upstream-error.ts';
import type { PooledUpstream } from './pooled-upstream.ts';
import type { ServedTip } from './served-tip.ts';
import type { UpstreamMetrics } from './upstream-metrics.ts';

export interface HeadTracker {
  /** The highest head a verified upstream reported at the last poll; -1 until one answers. */
  readonly bestHead: number;
  /** Settles once every upstream was polled once (identity checked, head read, or no answer). */
  readonly firstPoll: Promise<void>;
  /** Polls every upstream now (tests; the timer does it on its own). */
  pollNow(): Promise<void>;
  stop(): void;
}

export interface HeadTrackerOptions {
  upstreams: readonly PooledUpstream[];
  kind: ChainKind;
  intervalMs: number;
  metrics: UpstreamMetrics;
  labels: { chain: string; network: string };
  tip: ServedTip;
  maxLagBlocks: number;
  /** Checks an upstream's chain before it is polled for heads: at first and after it was away. */
  checkIdentity(upstream: PooledUpstream): Promise<void>;
  logger: Logger;
}

const headMethod: Record<ChainKind, string> = { evm: 'eth_blockNumber', solana: 'getSlot' };
/** Every upstream below the served tip for this long: the chain started over (a devnet reset), the tip follows. */
const resetAfterMs = 30_000;
/** After a node's head went back (a load balancer over unsynced nodes), its lowest recent head is the one trusted. */
const flappingMs = 30_000;
const recentHeads = 4;

interface UpstreamHeads {
  reported: number[];
  flappingUntil: number;
}

/**
 * Polls each upstream every interval: its identity until verified, then its head (`eth_blockNumber`,
 * or `getSlot` on Solana). Polls go through the upstream's breaker, so a poll is also the probe that
 * brings an open breaker back; a poll the node does not answer at all (a stopped process) opens the
 * breaker at once. The served tip follows the best verified head and never goes back, unless every
 * upstream stays below it for `resetAfterMs`.
 */
export function createHeadTracker(options: HeadTrackerOptions): HeadTracker {
  const { upstreams, tip, logger } = options;
  const body = `{"jsonrpc":"2.0","id":1,"method":"${headMethod[options.kind]}","params":[]}`;
  const polling = new Map<PooledUpstream, Promise<void>>();
  const history = new Map<PooledUpstream, UpstreamHeads>(upstreams.map((u) => [u, { reported: [], flappingUntil: 0 }]));
  let bestHead = -1;
  let allBelowSince: number | undefined;

  const publish = () => {
    bestHead = -1;
    for (const upstream of upstreams) if (upstream.identity === 'verified' && upstream.head > bestHead) bestHead = upstream.head;
    if (bestHead >= 0) followTip(bestHead);
    for (const upstream of upstreams) {
      if (upstream.head < 0) continue;
      upstream.lagBlocks = Math.max(0, tip.value - upstream.head);
      options.metrics.lagBlocks.set({ ...options.labels, upstream: upstream.label }, upstream.lagBlocks);
      upstream.condition.refresh();
    }
  };
  const followTip = (best: number) => {
    if (best >= tip.value - options.maxLagBlocks || tip.value < 0) {
      allBelowSince = undefined;
      tip.advance(best);
      return;
    }
    allBelowSince ??= Date.now();
    if (Date.now() - allBelowSince < resetAfterMs) return;
    logger.warn(
      { network: `${options.labels.chain}/${options.labels.network}`, from: tip.value, to: best },
      'every upstream stayed below the served tip: the chain started over, so does the tip',
    );
    allBelowSince = undefined;
    tip.reset(best);
  };
  const pollOne = (upstream: PooledUpstream): Promise<void> => {
    // A stalled node keeps its poll open until the stall watch gives up: never pile polls onto it.
    const running = polling.get(upstream);
    if (running) return running;
    if (!upstream.breaker.isAvailable(performance.now())) return Promise.resolve();
    const poll = identifiedHead(upstream).finally(() => polling.delete(upstream));
    polling.set(upstream, poll);
    return poll;
  };
  const identifiedHead = async (upstream: PooledUpstream) => {
    if (upstream.identity !== 'verified') await options.checkIdentity(upstream);
    if (upstream.identity === 'verified') await fetchHead(upstream);
  };
  const fetchHead = async (upstream: PooledUpstream) => {
    try {
      const head = parseHead(await upstream.send(body, 1, upstream.costOf(headMethod[options.kind]), 'poll'));
      if (head === undefined) return;
      upstream.head = trustedHead(history.get(upstream)!, head);
      options.metrics.headBlock.set({ ...options.labels, upstream: upstream.label }, head);
    } catch (error) {
      // A node that does not answer a head poll at all, or refuses the connection (killed), serves nothing:
      // out now, not after five more polls.
      if (error instanceof UpstreamError && (error.reason === 'timeout' || isRefused(error))) {
        upstream.breaker.trip(performance.now());
      }
    }
  };
  const pollNow = async () => {
    await Promise.all(upstreams.map(pollOne));
    publish();
  };

  const firstPoll = pollNow();
  const timer = setInterval(() => void pollNow(), options.intervalMs);
  timer.unref();

  return {
    get bestHead() {
      return bestHead;
    },
    firstPoll,
    pollNow,
    stop: () => clearInterval(timer),
  };
}

/** Nothing listens at the node's address: a process that exited, not a connection that dropped once. */
function isRefused(error: UpstreamError): boolean {
  return error.reason === 'connection' && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED';
}

/** The head routing may rely on: the reported one, or while the node flaps, its lowest recent one. */
function trustedHead(heads: UpstreamHeads, reported: number): number {
  const previous = heads.reported[heads.reported.length - 1];
  if (previous !== undefined && reported < previous) heads.flappingUntil = Date.now() + flappingMs;
  heads.reported.push(reported);
  if (heads.reported.length > recentHeads) heads.reported.shift();
  return Date.now() < heads.flappingUntil ? Math.min(...heads.reported) : reported;
}

function parseHead(text: string): number | undefined {
  try {
    const { result } = JSON.parse(text) as { result?: unknown };
    if (typeof result === 'number') return result;
    if (typeof result === 'string' && /^0x[0-9a-f]+$/i.test(result)) return Number.parseInt(result, 16);
  } catch {
    // Not an answer we understand: the head stays as it was.
  }
  return undefined;
}
