import type { Network } from './registry.ts';

/** An indexer's saved progress, as the index store reads it (any process may be the one indexing). */
export interface IndexProgress {
  readonly network: string;
  readonly indexedBlock: number;
  readonly headBlock: number;
  readonly updatedAt: string;
}

export interface UpstreamStatus {
  url_host: string;
  healthy: boolean;
  latency_ms: number | null;
  state: 'closed' | 'open' | 'half_open';
}

export interface NetworkStatus {
  chain: string;
  network: string;
  chain_id: number;
  testnet: boolean;
  kind: string;
  upstreams: UpstreamStatus[];
  indexer: { head: number; indexed: number; behind: number; running: boolean } | null;
  bundler: boolean;
}

/** The running indexer saves its progress every second; a row this old means no process indexes the network. */
const indexerStaleMs = 30_000;

/**
 * What the dashboard shows of a network. Upstream URLs become their host (and port): providers put
 * API keys in the path or query.
 */
export function networkStatus(network: Network, progress: IndexProgress | undefined, nowMs: number): NetworkStatus {
  const { config } = network;
  const upstreams = network.pool.stats().map((stats, index) => ({
    url_host: new URL(config.upstreams[index]!.url).host,
    healthy: stats.breaker === 'closed',
    latency_ms: stats.samples === 0 ? null : Math.round(stats.ewmaMs * 10) / 10,
    state: stats.breaker as UpstreamStatus['state'],
  }));
  let indexer: NetworkStatus['indexer'] = null;
  if (config.indexer.enabled) {
    indexer = progress
      ? {
          head: progress.headBlock,
          indexed: progress.indexedBlock,
          behind: Math.max(0, progress.headBlock - progress.indexedBlock),
          running: nowMs - Date.parse(progress.updatedAt) < indexerStaleMs,
        }
      : { head: -1, indexed: -1, behind: 0, running: false };
  }
  return {
    chain: config.chain,
    network: config.network,
    chain_id: config.chainId,
    testnet: config.testnet,
    kind: config.kind,
    upstreams,
    indexer,
    bundler: config.kind === 'evm' && config.bundler.enabled,
  };
}
