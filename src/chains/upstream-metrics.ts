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
  /** 1 for the condition each upstream is in (src/chains/upstream-condition.ts), 0 for the others it was in. */
  readonly condition: Gauge<UpstreamLabels | 'condition'>;
  readonly conditionChanges: Counter<UpstreamLabels | 'condition'>;
  readonly identityRefusals: Counter<UpstreamLabels>;
  readonly rateLimited: Counter<UpstreamLabels>;
  readonly integrityFailures: Counter<UpstreamLabels>;
  /** Answers not used because the node lacked the block another node has (asked again elsewhere). */
  readonly missingAnswers: Counter<UpstreamLabels>;
  /** Reads no upstream could take because every one was out of budget. */
  readonly budgetExhausted: Counter<'chain' | 'network'>;
  /** The network's `finalized` and `safe` blocks as the service uses them (tags, else the depth fallback). */
  readonly finalBlock: Gauge<'chain' | 'network' | 'tag'>;
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
    condition: new Gauge({
      name: 'blockyard_upstream_condition',
      help: 'Condition of each upstream node (1: the one it is in): ok, lagging, bad_answers, rate_limited, verifying, recovering, unreachable, wrong_chain',
      labelNames: [...labelNames, 'condition'],
      registers,
    }),
    conditionChanges: new Counter({
      name: 'blockyard_upstream_condition_changes_total',
      help: 'Changes of condition of each upstream node, by the condition entered',
      labelNames: [...labelNames, 'condition'],
      registers,
    }),
    identityRefusals: new Counter({
      name: 'blockyard_upstream_identity_refusals_total',
      help: "Identity checks an upstream node failed (eth_chainId or getGenesisHash not the network's)",
      labelNames,
      registers,
    }),
    rateLimited: new Counter({
      name: 'blockyard_upstream_rate_limited_total',
      help: 'Answers of 429 or a rate-limit error from each upstream node',
      labelNames,
      registers,
    }),
    integrityFailures: new Counter({
      name: 'blockyard_upstream_integrity_failures_total',
      help: 'Answers of each upstream node that failed an integrity check (never cached or indexed)',
      labelNames,
      registers,
    }),
    missingAnswers: new Counter({
      name: 'blockyard_upstream_missing_answers_total',
      help: 'Answers (null, header not found) of a node lacking a block that another node was asked for instead',
      labelNames,
      registers,
    }),
    budgetExhausted: new Counter({
      name: 'blockyard_upstream_budget_exhausted_total',
      help: 'Reads refused because every upstream of the network was out of budget or backing off',
      labelNames: ['chain', 'network'],
      registers,
    }),
    finalBlock: new Gauge({
      name: 'blockyard_chain_final_block',
      help: "Newest block of the network counted as final (tag=finalized) or safe (tag=safe): its nodes' own tags with finality: tags, else finality_depth below the head",
      labelNames: ['chain', 'network', 'tag'],
      registers,
    }),
  };
}
