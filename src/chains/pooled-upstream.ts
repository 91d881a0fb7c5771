import { type CircuitBreaker, type CircuitBreakerOptions, createCircuitBreaker } from './circuit-breaker.ts';
import { createLatencyStats, type LatencyStats } from './latency-stats.ts';
import { answerError, isRetryableAnswerError, RetryableRpcError } from './retryable.ts';
import { createStallWatch } from './stall-watch.ts';
import { type UpstreamClient, UpstreamError, type UpstreamFailure } from './upstream-client.ts';
import { breakerStateValue, type UpstreamMetrics } from './upstream-metrics.ts';

/** One node of a pool: its client, breaker, latency, head and concurrency limit. */
export interface PooledUpstream {
  readonly index: number;
  /** Bit of this upstream in a pool's "already tried" mask. */
  readonly bit: number;
  /** Host (and port) only: a URL may carry an API key, metrics and logs must not. */
  readonly label: string;
  readonly url: string;
  readonly breaker: CircuitBreaker;
  readonly latency: LatencyStats;
  readonly maxConcurrency: number;
  readonly inFlight: number;
  /** Why its last transport failure happened (what the pool reports when no upstream is left to try). */
  readonly lastFailure: UpstreamFailure | undefined;
  /** Latest block the head tracker saw; -1 until the first poll answers. */
  head: number;
  /**
   * Sends one JSON-RPC body. Resolves with the node's text for results and for final JSON-RPC errors;
   * rejects with `UpstreamError` or `RetryableRpcError`, which another node may answer.
   */
  send(body: string): Promise<string>;
  close(): Promise<void>;
}

export interface PooledUpstreamOptions {
  index: number;
  label: string;
  client: UpstreamClient;
  maxConcurrency: number;
  /** Requests waiting for a free slot beyond which the upstream reports itself overloaded. */
  maxQueued: number;
  breaker: CircuitBreakerOptions;
  metrics: UpstreamMetrics;
  labels: { chain: string; network: string };
  /** A cheap call the node always answers (`eth_chainId`, Solana's `getHealth`): the stall probe. */
  probeBody?: string;
}

export function createPooledUpstream(options: PooledUpstreamOptions): PooledUpstream {
  const { index, label, client, maxConcurrency, maxQueued, metrics } = options;
  const labelValues = { ...options.labels, upstream: label };
  const duration = metrics.attemptDuration.labels(labelValues.chain, labelValues.network, label);
  const breakerGauge = metrics.breakerState.labels(labelValues);
  breakerGauge.set(0);
  const breaker = createCircuitBreaker({
    ...options.breaker,
    onStateChange: (state) => breakerGauge.set(breakerStateValue[state]),
  });
  const latency = createLatencyStats();
  const probeBody = options.probeBody ?? '{"jsonrpc":"2.0","id":"stall-probe","method":"eth_chainId","params":[]}';
  const stalls = createStallWatch({ probe: () => client.send(probeBody) });
  // A slot is handed from a finishing request to the next waiter, so the limit holds exactly.
  const waiting: (() => void)[] = [];
  let inFlight = 0;
  let lastFailure: UpstreamFailure | undefined;
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else inFlight--;
  };
  const fail = (reason: string, error: Error): never => {
    latency.recordFailure();
    breaker.onFailure(performance.now());
    metrics.attemptErrors.inc({ ...labelValues, reason });
    if (error instanceof UpstreamError) lastFailure = error.reason;
    throw error;
  };

  return {
    index,
    bit: 1 << index,
    label,
    url: client.url,
    breaker,
    latency,
    maxConcurrency,
    get inFlight() {
      return inFlight;
    },
    get lastFailure() {
      return lastFailure;
    },
    head: -1,
    async send(body) {
      if (inFlight < maxConcurrency) inFlight++;
      else if (waiting.length < maxQueued) await new Promise<void>((resolve) => waiting.push(resolve));
      else {
        metrics.attemptErrors.inc({ ...labelValues, reason: 'overloaded' });
        throw new UpstreamError('overloaded', 'upstream is at its concurrency limit');
      }
      try {
        const started = performance.now();
        if (!breaker.tryAcquire(started)) throw new UpstreamError('circuit_open', 'upstream circuit breaker is open');
        let text: string;
        try {
          text = await stalls.watch(() => client.send(body));
        } catch (error) {
          return fail(error instanceof UpstreamError ? error.reason : 'connection', error as Error);
        }
        const error = answerError(text);
        if (error !== undefined && isRetryableAnswerError(error)) {
          return fail('rpc_retryable', new RetryableRpcError(text, error.code));
        }
        const elapsed = performance.now() - started;
        latency.recordSuccess(elapsed);
        breaker.onSuccess();
        duration.observe(elapsed / 1000);
        return text;
      } finally {
        release();
      }
    },
    close: () => client.close(),
  };
}
