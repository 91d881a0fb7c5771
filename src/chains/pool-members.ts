import type { Logger } from 'pino';
import type { UpstreamConfig } from '../config/chain-settings.ts';
import { createBatchingClient } from './batching-client.ts';
import { createMethodFilter } from './method-filter.ts';
import { createPooledUpstream, type PooledUpstream } from './pooled-upstream.ts';
import { costOf } from './provider-cu-tables.ts';
import { createUpstreamBudget } from './upstream-budget.ts';
import { createUpstreamClient, type UpstreamClient } from './upstream-client.ts';
import type { UpstreamMetrics } from './upstream-metrics.ts';
import type { UpstreamPoolOptions } from './upstream-pool-options.ts';

/** Default per-upstream timeout: long enough for a heavy `eth_getLogs`, the hedge covers slow nodes sooner. */
const defaultTimeoutMs = 30_000;
const defaultMaxConcurrency = 64;
/** Small enough for every provider's batch limit, large enough to save most exchanges under load. */
const defaultBatchMaxSize = 20;
/** A slot is free within one answer time, so a few waiters per slot add little delay. */
const queuedPerSlot = 4;
/** A pool's upstreams, each with its client (batching quick calls; the stall probe alone), slots, budget and label. */
export function createPooledUpstreams(
  options: UpstreamPoolOptions,
  metrics: UpstreamMetrics,
  labels: { chain: string; network: string },
  logger: Logger,
  onAnsweredAfterStall?: () => void,
): PooledUpstream[] {
  const { chain, network } = labels;
  const hostLabels = labelsFor(options.upstreams);
  return options.upstreams.map((config, index) => {
    const maxConcurrency = config.maxConcurrency ?? defaultMaxConcurrency;
    const client = createUpstreamClient({
      url: config.url,
      timeoutMs: config.timeoutMs ?? defaultTimeoutMs,
      connections: maxConcurrency,
      gzip: config.gzip,
    });
    return createPooledUpstream({
      index,
      label: hostLabels[index]!,
      client: batching(
        client,
        options.kind === 'solana' ? 1 : (config.batchMaxSize ?? defaultBatchMaxSize),
        metrics.batchSize.labels(chain, network, hostLabels[index]!),
      ),
      probeClient: client,
      maxConcurrency,
      maxQueued: maxConcurrency * queuedPerSlot,
      breaker: options.breaker ?? {},
      metrics,
      labels,
      tier: config.tier,
      archive: config.archive,
      recentBlocks: config.recentBlocks,
      serves: createMethodFilter(config.methods),
      budget: createUpstreamBudget({ rps: config.rps, cuPerS: config.cuPerS }),
      costOf: (method) => costOf(config.cuTable ?? 'flat', method),
      logsRangeCap: config.getLogsMaxRange,
      maxLagBlocks: options.maxLagBlocks ?? 3,
      logger,
      onAnsweredAfterStall,
      ...(options.kind === 'solana' ? { probeBody: '{"jsonrpc":"2.0","id":"stall-probe","method":"getHealth"}' } : {}),
    });
  });
}

function batching(client: UpstreamClient, maxSize: number, sizes: { observe(size: number): void }): UpstreamClient {
  return maxSize > 1 ? createBatchingClient(client, { maxSize, onBatch: (size) => sizes.observe(size) }) : client;
}

/** Each upstream's name, else host and port of its URL (never its path or query, where API keys live); `#n` when two share a host. */
function labelsFor(configs: readonly UpstreamConfig[]): string[] {
  const hosts = configs.map((config) => config.name ?? new URL(config.url).host);
  return hosts.map((host, index) => (hosts.indexOf(host) === hosts.lastIndexOf(host) ? host : `${host}#${index}`));
}
