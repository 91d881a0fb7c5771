import type { ChainKind } from '../config/chain-settings.ts';
import type { PooledUpstream } from './pooled-upstream.ts';
import type { UpstreamMetrics } from './upstream-metrics.ts';

export interface HeadTracker {
  /** The highest head any upstream reported; -1 until one answers. */
  readonly bestHead: number;
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
}

const headMethod: Record<ChainKind, string> = { evm: 'eth_blockNumber', solana: 'getSlot' };

/**
 * Polls each upstream's head (`eth_blockNumber`, or `getSlot` on Solana) every interval. Polls go
 * through the upstream's breaker, so a poll is also the probe that brings an open breaker back.
 */
export function createHeadTracker({ upstreams, kind, intervalMs, metrics, labels }: HeadTrackerOptions): HeadTracker {
  const body = `{"jsonrpc":"2.0","id":1,"method":"${headMethod[kind]}","params":[]}`;
  const polling = new Map<PooledUpstream, Promise<void>>();
  let bestHead = -1;

  const publish = () => {
    // Recomputed from current heads, so a chain that went back (a reset devnet) does not leave everyone lagging.
    bestHead = -1;
    for (const upstream of upstreams) if (upstream.head > bestHead) bestHead = upstream.head;
    for (const upstream of upstreams) {
      if (upstream.head < 0) continue;
      metrics.lagBlocks.set({ ...labels, upstream: upstream.label }, bestHead - upstream.head);
    }
  };
  const pollOne = (upstream: PooledUpstream): Promise<void> => {
    // A stalled node keeps its poll open until the timeout: never pile polls onto it.
    const running = polling.get(upstream);
    if (running) return running;
    if (!upstream.breaker.isAvailable(performance.now())) return Promise.resolve();
    const poll = fetchHead(upstream).finally(() => polling.delete(upstream));
    polling.set(upstream, poll);
    return poll;
  };
  const fetchHead = async (upstream: PooledUpstream) => {
    try {
      const head = parseHead(await upstream.send(body));
      if (head === undefined) return;
      upstream.head = head;
      if (head > bestHead) bestHead = head;
      metrics.headBlock.set({ ...labels, upstream: upstream.label }, head);
    } catch {
      // The breaker and the error metrics have recorded it.
    }
  };
  const pollNow = async () => {
    await Promise.all(upstreams.map(pollOne));
    publish();
  };

  void pollNow();
  const timer = setInterval(() => void pollNow(), intervalMs);
  timer.unref();

  return {
    get bestHead() {
      return bestHead;
    },
    pollNow,
    stop: () => clearInterval(timer),
  };
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
