import { Counter, Gauge, type Registry } from 'prom-client';
import { FastHistogram } from '../observability/fast-histogram.ts';
import type { BreakerState } from './circuit-breaker.ts';

type UpstreamLabels = 'chain' | 'network' | 'upstream';

/** Metrics per upstream node, shared by every pool of a process (prom-client refuses a name twice). */
export interface UpstreamMetrics {
  /** Observed on every upstream call: a FastHistogram, whose bound children hash no labels per call. */
  readonly attemptDuration: FastHistogram<UpstreamLabels>;
  readonly attemptErrors: Counter<UpstreamLabels | 'reason'>;
  readonly breakerState: Gauge<UpstreamLabels>;
  readonly headBlock: Gauge<UpstreamLabels>;
  readonly lagBlocks: Gauge<UpstreamLabels>;
  readonly hedges: Counter<'chain' | 'network'>;
  /** Calls per JSON-RPC batch sent to each node (its count is the number of batches). */
  readonly batchSize: FastHistogram<UpstreamLabels>;
}

/** The gauge value of each breaker state: alerts can say `> 0`. */
export const breakerStateValue: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

export function createUpstreamMetrics(registry: Registry): UpstreamMetrics {
  const registers = [registry];
  const labelNames = ['chain', 'network', 'upstream'] as const;
  return {
    attemptDuration: new FastHistogram({
      name: 'blockyard_upstream_attempt_duration_seconds',
      help: 'Time one upstream node took to answer one attempt',
      labelNames,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    attemptErrors: new Counter({
      name: 'blockyard_upstream_attempt_errors_total',
      help: 'Failed attempts per upstream node, by reason (timeout, connection, http_status, overloaded, rpc_retryable)',
      labelNames: [...labelNames, 'reason'],
      registers,
    }),
    breakerState: new Gauge({
      name: 'blockyard_upstream_breaker_state',
      help: 'Circuit breaker per upstream node: 0 closed, 1 half-open, 2 open',
      labelNames,
      registers,
    }),
    headBlock: new Gauge({
      name: 'blockyard_upstream_head_block',
      help: 'Latest block (slot on Solana) each upstream node reported',
      labelNames,
      registers,
    }),
    lagBlocks: new Gauge({
      name: 'blockyard_upstream_lag_blocks',
      help: 'Blocks each upstream node is behind the best head of its network',
      labelNames,
      registers,
    }),
    hedges: new Counter({
      name: 'blockyard_upstream_hedges_total',
      help: 'Second requests sent because the first was slower than its upstream p95',
      labelNames: ['chain', 'network'],
      registers,
    }),
    batchSize: new FastHistogram({
      name: 'blockyard_upstream_batch_size',
      help: 'Calls per JSON-RPC batch sent to each upstream node (quick calls that arrived together)',
      labelNames,
      buckets: [2, 5, 10, 20, 50, 100],
      registers,
    }),
  };
}
