import { Registry } from 'prom-client';
import type { ChainKind, UpstreamConfig } from '../config/chain-settings.ts';
import { createBatchingClient } from './batching-client.ts';
import type { CircuitBreakerOptions } from './circuit-breaker.ts';
import { createHeadTracker, type HeadTracker } from './head-tracker.ts';
import { sendHedged } from './hedged-send.ts';
import { createPooledUpstream, type PooledUpstream } from './pooled-upstream.ts';
import { isRetryable, RetryableRpcError } from './retryable.ts';
import { createUpstreamClient, type UpstreamClient, UpstreamError } from './upstream-client.ts';
import { createUpstreamMetrics, type UpstreamMetrics } from './upstream-metrics.ts';
import { broadcastWrite } from './write-broadcast.ts';

export interface UpstreamStats {
  readonly upstream: string;
  readonly head: number;
  readonly lag: number;
  readonly ewmaMs: number;
  readonly p95Ms: number;
  readonly errorRate: number;
  readonly samples: number;
  readonly breaker: string;
  readonly inFlight: number;
}

/** A network's upstreams behind one client: reads are routed, failed over and hedged; writes go to all. */
export interface UpstreamPool extends UpstreamClient {
  /** Sends a read to the best healthy, caught-up upstream; fails over on retryable errors only. */
  send(body: string): Promise<string>;
  /** Sends a write (e.g. `eth_sendRawTransaction`) to every healthy upstream; the first success answers. */
  broadcast(body: string): Promise<string>;
  /** Whether at least one upstream's breaker lets requests through. */
  hasHealthyUpstream(): boolean;
  /**
   * WebSocket URLs of the upstreams that have one, best first: breaker closed and caught up, then
   * lagging, then failing; by latency within each rank. A subscription feed connects to the first.
   */
  socketUrls(): string[];
  stats(): UpstreamStats[];
  readonly heads: HeadTracker;
}

export interface UpstreamPoolOptions {
  upstreams: readonly UpstreamConfig[];
  chain: string;
  network: string;
  kind?: ChainKind;
  /** Head poll interval; the chain's block time. */
  headPollMs: number;
  /** Blocks behind the best head beyond which an upstream gets no reads while others are caught up. Default 3. */
  maxLagBlocks?: number;
  /** Attempts per read, hedges included. Default 3. */
  maxAttempts?: number;
  breaker?: CircuitBreakerOptions;
  /** Hedge once the first attempt is slower than the upstream's p95, but never sooner than `floorMs`. */
  hedge?: { minSamples?: number; floorMs?: number };
  /** Shared by every pool of a process; default: a private registry (not exported). */
  metrics?: UpstreamMetrics;
}

/** Default per-upstream timeout: long enough for a heavy `eth_getLogs`, the hedge covers slow nodes sooner. */
const defaultTimeoutMs = 30_000;
const defaultMaxConcurrency = 64;
/** Small enough for every provider's batch limit, large enough to save most exchanges under load. */
const defaultBatchMaxSize = 20;
/** A slot is free within one answer time, so a few waiters per slot add little delay. */
const queuedPerSlot = 4;

/** What a read needs to be routed: built once per pool, shared by every call. */
interface ReadRouting {
  upstreams: readonly PooledUpstream[];
  maxAttempts: number;
  hedgeDelayMs(upstream: PooledUpstream): number;
  pick(tried: number): PooledUpstream | undefined;
  onHedge(): void;
}

export function createUpstreamPool(options: UpstreamPoolOptions): UpstreamPool {
  const { chain, network, maxLagBlocks = 3, maxAttempts = 3 } = options;
  if (options.upstreams.length === 0 || options.upstreams.length > 30) throw new Error('a pool holds 1 to 30 upstreams');
  const metrics = options.metrics ?? createUpstreamMetrics(new Registry());
  const labels = { chain, network };
  const upstreams = createPooledUpstreams(options, metrics, labels);
  const heads = createHeadTracker({ upstreams, kind: options.kind ?? 'evm', intervalMs: options.headPollMs, metrics, labels });
  const minSamples = options.hedge?.minSamples ?? 20;
  const floorMs = options.hedge?.floorMs ?? 10;
  const hedgeCounter = metrics.hedges.labels(labels);
  const routing: ReadRouting = {
    upstreams,
    maxAttempts,
    hedgeDelayMs: (upstream) =>
      upstreams.length < 2 || upstream.latency.samples < minSamples ? -1 : Math.max(floorMs, upstream.latency.p95Ms()),
    pick: (tried) => pickUpstream(upstreams, heads.bestHead - maxLagBlocks, tried),
    onHedge: () => hedgeCounter.inc(),
  };

  return {
    url: upstreams[0]!.url,
    heads,
    send: (body) => sendRead(routing, body),
    broadcast: (body) => broadcastToAvailable(upstreams, body),
    hasHealthyUpstream: () => upstreams.some((upstream) => upstream.breaker.state === 'closed'),
    socketUrls: () => rankSocketUrls(options.upstreams, upstreams, heads.bestHead - maxLagBlocks),
    stats: () => upstreams.map((upstream) => statsOf(upstream, heads.bestHead)),
    async close() {
      heads.stop();
      await Promise.all(upstreams.map((upstream) => upstream.close()));
    },
  };
}

function createPooledUpstreams(
  options: UpstreamPoolOptions,
  metrics: UpstreamMetrics,
  labels: { chain: string; network: string },
): PooledUpstream[] {
  const { chain, network } = labels;
  const hostLabels = labelsFor(options.upstreams.map((u) => u.url));
  return options.upstreams.map((config, index) => {
    const maxConcurrency = config.maxConcurrency ?? defaultMaxConcurrency;
    return createPooledUpstream({
      index,
      label: hostLabels[index]!,
      client: batching(
        createUpstreamClient({ url: config.url, timeoutMs: config.timeoutMs ?? defaultTimeoutMs, connections: maxConcurrency }),
        options.kind === 'solana' ? 1 : (config.batchMaxSize ?? defaultBatchMaxSize),
        metrics.batchSize.labels(chain, network, hostLabels[index]!),
      ),
      maxConcurrency,
      maxQueued: maxConcurrency * queuedPerSlot,
      breaker: options.breaker ?? {},
      metrics,
      labels,
      ...(options.kind === 'solana' ? { probeBody: '{"jsonrpc":"2.0","id":"stall-probe","method":"getHealth"}' } : {}),
    });
  });
}

/** Peak-EWMA: latency times load, so a stalled node (its requests pile up) loses traffic at once. */
function pickUpstream(upstreams: readonly PooledUpstream[], caughtUp: number, tried: number): PooledUpstream | undefined {
  const now = performance.now();
  let best: PooledUpstream | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const upstream of upstreams) {
    if ((tried & upstream.bit) !== 0 || !upstream.breaker.isAvailable(now)) continue;
    let score = (upstream.latency.ewmaMs + 0.01) * (upstream.inFlight + 1);
    if (upstream.inFlight >= upstream.maxConcurrency) score += 1e9;
    // Lagging nodes only when no caught-up one is left.
    if (upstream.head >= 0 && upstream.head < caughtUp) score += 1e12;
    if (score < bestScore) {
      best = upstream;
      bestScore = score;
    }
  }
  return best;
}

async function sendRead(routing: ReadRouting, body: string): Promise<string> {
  const { maxAttempts, pick } = routing;
  const state = { tried: 0 };
  let failure: unknown;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const upstream = pick(state.tried);
    if (upstream === undefined) break;
    state.tried |= upstream.bit;
    try {
      const delay = attempt + 1 < maxAttempts ? routing.hedgeDelayMs(upstream) : -1;
      if (delay < 0) return await upstream.send(body);
      return await sendHedged({ first: upstream, body, delayMs: delay, state, pick, onHedge: routing.onHedge });
    } catch (error) {
      if (!isRetryable(error)) throw error;
      failure = error;
    }
  }
  // A node's own answer (e.g. "header not found" everywhere) says more than our generic error.
  if (failure instanceof RetryableRpcError) return failure.text;
  if (failure instanceof UpstreamError && failure.reason !== 'circuit_open') throw failure;
  throw noUpstreamAvailable(routing.upstreams);
}

function broadcastToAvailable(upstreams: readonly PooledUpstream[], body: string): Promise<string> {
  const now = performance.now();
  const targets = upstreams.filter((upstream) => upstream.breaker.isAvailable(now));
  if (targets.length === 0) return Promise.reject(noUpstreamAvailable(upstreams));
  return broadcastWrite(targets, body);
}

function noUpstreamAvailable(upstreams: readonly PooledUpstream[]): UpstreamError {
  return new UpstreamError(
    upstreams.find((u) => u.lastFailure !== undefined)?.lastFailure ?? 'connection',
    'no upstream available',
  );
}

function rankSocketUrls(configs: readonly UpstreamConfig[], upstreams: readonly PooledUpstream[], caughtUp: number): string[] {
  const rank = (upstream: PooledUpstream) =>
    (upstream.breaker.state === 'closed' ? 0 : 2) + (upstream.head >= 0 && upstream.head < caughtUp ? 1 : 0);
  return upstreams
    .filter((upstream) => configs[upstream.index]!.wsUrl !== undefined)
    .sort((a, b) => rank(a) - rank(b) || a.latency.ewmaMs - b.latency.ewmaMs)
    .map((upstream) => configs[upstream.index]!.wsUrl!);
}

function statsOf(upstream: PooledUpstream, bestHead: number): UpstreamStats {
  return {
    upstream: upstream.label,
    head: upstream.head,
    lag: upstream.head < 0 ? 0 : bestHead - upstream.head,
    ewmaMs: upstream.latency.ewmaMs,
    p95Ms: upstream.latency.p95Ms(),
    errorRate: upstream.latency.errorRate,
    samples: upstream.latency.samples,
    breaker: upstream.breaker.state,
    inFlight: upstream.inFlight,
  };
}

function batching(client: UpstreamClient, maxSize: number, sizes: { observe(size: number): void }): UpstreamClient {
  return maxSize > 1 ? createBatchingClient(client, { maxSize, onBatch: (size) => sizes.observe(size) }) : client;
}

/** Host and port of each URL, never its path or query (where API keys live); `#n` when two share a host. */
function labelsFor(urls: readonly string[]): string[] {
  const hosts = urls.map((url) => new URL(url).host);
  return hosts.map((host, index) => (hosts.indexOf(host) === hosts.lastIndexOf(host) ? host : `${host}#${index}`));
}
