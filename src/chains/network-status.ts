import type { Network } from './registry.ts';
import type { UpstreamConditionName } from './upstream-condition.ts';

/** An indexer's saved progress, as the index store reads it (any process may be the one indexing). */
export interface IndexProgress {
  readonly network: string;
  readonly indexedBlock: number;
  readonly headBlock: number;
  readonly updatedAt: string;
  /** Where the index starts (null: not started yet). */
  readonly startBlock?: number | null;
  readonly backfill?: BackfillSummary | null;
}

/** The backfill being worked on (else the last one done), as `blockyard index backfill` recorded it. */
export interface BackfillSummary {
  id: string;
  from: number;
  to: number;
  next: number;
  status: 'pending' | 'running' | 'done';
  blocks_done: number;
  blocks_total: number;
  blocks_per_second: number;
  transfers_per_second: number;
  seconds_left: number | null;
}

export interface UpstreamStatus {
  url_host: string;
  /** Its `name`, else `url_host`: the label of its logs and metrics. */
  name: string;
  healthy: boolean;
  latency_ms: number | null;
  state: 'closed' | 'open' | 'half_open';
  condition: UpstreamConditionName;
  reason: string | null;
  /** When it entered its condition. */
  since: string;
  tier: string;
  head: number;
  lag: number;
  budget: { rps: number | null; cu_per_s: number | null; tuned_rps: number | null };
  logs_range_cap: number | null;
}

export interface NetworkStatus {
  chain: string;
  network: string;
  chain_id: number;
  testnet: boolean;
  kind: string;
  native_symbol: string;
  block_time_s: number;
  fee_model: string;
  upstreams: UpstreamStatus[];
  /** The newest block served from this network (-1: none yet). */
  served_tip: number;
  indexer: {
    head: number;
    indexed: number;
    behind: number;
    running: boolean;
    start_block: number | null;
    backfill: BackfillSummary | null;
  } | null;
  bundler: boolean;
  finality: FinalityStatus;
}

/** How the network decides what is final, and the blocks that are now (null: not known yet). */
export interface FinalityStatus {
  model: 'tags' | 'depth';
  depth: number;
  finalized: number | null;
  safe: number | null;
  /** Whether a node reported the tags (false: the depth stands in). */
  from_node: boolean;
}

/** The running indexer saves its progress every second; a row this old means no process indexes the network. */
const indexerStaleMs = 30_000;

/**
 * What the dashboard shows of a network. Upstream URLs become their host (and port): providers put
 * API keys in the path or query.
 */
export function networkStatus(network: Network, progress: IndexProgress | undefined, nowMs: number): NetworkStatus {
  const { config } = network;
  const upstreams = network.pool.stats().map(
    (stats, index): UpstreamStatus => ({
      url_host: new URL(config.upstreams[index]!.url).host,
      name: stats.upstream,
      // Serving reads now: a lagging node still serves what it has, one backing off or failing does not.
      healthy: stats.condition.name === 'ok' || stats.condition.name === 'lagging' || stats.condition.name === 'bad_answers',
      latency_ms: stats.samples === 0 ? null : Math.round(stats.ewmaMs * 10) / 10,
      state: stats.breaker as UpstreamStatus['state'],
      condition: stats.condition.name,
      reason: stats.condition.reason,
      since: new Date(stats.condition.since).toISOString(),
      tier: stats.tier,
      head: stats.head,
      lag: stats.lag,
      budget: { rps: stats.budget.rps ?? null, cu_per_s: stats.budget.cuPerS ?? null, tuned_rps: stats.budget.tunedRps ?? null },
      logs_range_cap: stats.logsRangeCap,
    }),
  );
  let indexer: NetworkStatus['indexer'] = null;
  if (config.indexer.enabled) {
    indexer = progress
      ? {
          head: progress.headBlock,
          indexed: progress.indexedBlock,
          behind: Math.max(0, progress.headBlock - progress.indexedBlock),
          running: nowMs - Date.parse(progress.updatedAt) < indexerStaleMs,
          start_block: progress.startBlock ?? null,
          backfill: progress.backfill ?? null,
        }
      : { head: -1, indexed: -1, behind: 0, running: false, start_block: null, backfill: null };
  }
  return {
    chain: config.chain,
    network: config.network,
    chain_id: config.chainId,
    testnet: config.testnet,
    kind: config.kind,
    native_symbol: config.nativeSymbol,
    block_time_s: config.blockTimeS,
    fee_model: config.feeModel,
    upstreams,
    served_tip: network.pool.tip.value,
    indexer,
    bundler: config.kind === 'evm' && config.bundler.enabled,
    finality: finalityStatus(network),
  };
}

function finalityStatus(network: Network): FinalityStatus {
  const { config, pool } = network;
  const orNull = (block: number | undefined) => (block === undefined ? null : Math.max(-1, block));
  return {
    model: config.finality,
    depth: config.finalityDepth,
    finalized: orNull(pool.finalBlock('finalized')),
    safe: orNull(pool.finalBlock('safe')),
    from_node: config.finality === 'tags' && pool.finality().finalized !== undefined,
  };
}
