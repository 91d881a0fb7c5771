import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ChainConfig, UpstreamConfig } from '../config/chain-settings.ts';
import { notFound } from '../core/errors.ts';
import { type ClusterTip, createClusterTip } from './cluster-tip.ts';
import type { SharedTipStore } from './shared-tip-store.ts';
import type { UpstreamClient } from './upstream-client.ts';
import { createUpstreamMetrics } from './upstream-metrics.ts';
import { createUpstreamPool, type UpstreamPool } from './upstream-pool.ts';

/** A configured chain/network and the pool of upstreams that reaches it. */
export interface Network {
  readonly config: ChainConfig;
  readonly pool: UpstreamPool;
  /** The same pool, seen as a plain client (reads routed and failed over like `pool.send`). */
  readonly upstream: UpstreamClient;
  /** The served tip across API processes (`pool.tip` raised to the shared one when a store is configured). */
  readonly clusterTip: ClusterTip;
}

export interface ChainRegistry {
  /** The network at `{chain}/{network}`, or `not_found` naming what is configured. */
  get(chain: string, network: string): Network;
  list(): readonly Network[];
  /**
   * Waits (bounded) for every upstream's first identity check; fails naming the network, the upstream
   * and the chain id found when every upstream of a network serves another chain.
   */
  verifyIdentities(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Head polls at most this often, whatever the block time (a 0.1 s devnet must not be flooded). */
const minHeadPollMs = 250;
/**
 * And at least this often, whatever the block time: a head poll is also how an idle node that stopped
 * answering is noticed, and /admin/chains must say so within 2 s (this plus the stall watch's 0.8 s).
 */
const maxHeadPollMs = 1_000;

export function createChainRegistry(
  chains: readonly ChainConfig[],
  options: {
    embeddedUpstream?: UpstreamConfig;
    metricsRegistry?: Registry;
    logger?: Logger;
    /** Where the API processes of a deployment share their served tips (Redis); absent: each its own. */
    sharedTips?: SharedTipStore;
  } = {},
): ChainRegistry {
  const metrics = options.metricsRegistry ? createUpstreamMetrics(options.metricsRegistry) : undefined;
  const networks = chains.map((config): Network => {
    const upstreams = config.embedded ? (options.embeddedUpstream ? [options.embeddedUpstream] : []) : config.upstreams;
    if (upstreams.length === 0) throw new Error(`no upstream for ${config.chain}/${config.network}`);
    const resolved: ChainConfig = config.embedded ? { ...config, upstreams } : config;
    const pool = createUpstreamPool({
      upstreams,
      chain: config.chain,
      network: config.network,
      kind: config.kind,
      headPollMs: config.headPollMs ?? Math.min(maxHeadPollMs, Math.max(minHeadPollMs, config.blockTimeS * 1000)),
      maxLagBlocks: config.maxLagBlocks,
      chainId: config.kind === 'evm' ? config.chainId : undefined,
      genesisHash: config.genesisHash,
      metrics,
      logger: options.logger,
      finality: config,
      // The embedded devnet is one anvil: its logs are never a node behind's.
      headWitness: config.kind === 'evm' && !config.embedded,
    });
    const clusterTip = createClusterTip(pool.tip, options.sharedTips, `${config.chain}/${config.network}`);
    return { config: resolved, pool, upstream: pool, clusterTip };
  });
  const byPath = new Map(networks.map((network) => [`${network.config.chain}/${network.config.network}`, network]));

  return {
    get(chain, network) {
      const found = byPath.get(`${chain}/${network}`);
      if (found) return found;
      const ofChain = networks.filter((n) => n.config.chain === chain).map((n) => n.config.network);
      if (ofChain.length === 0) {
        const known = [...new Set(networks.map((n) => n.config.chain))].join(', ');
        throw notFound(`unknown chain '${chain}' (configured: ${known})`);
      }
      throw notFound(`chain '${chain}' has no network '${network}' (configured: ${ofChain.join(', ')})`);
    },
    list: () => networks,
    async verifyIdentities(timeoutMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      await Promise.race([Promise.all(networks.map((network) => network.pool.identified())), deadline]);
      clearTimeout(timer);
      for (const network of networks) assertRightChain(network);
    },
    async close() {
      await Promise.all(networks.map((network) => network.pool.close()));
    },
  };
}

/** A network whose every upstream serves another chain cannot start: it would serve that chain's data. */
function assertRightChain(network: Network): void {
  const stats = network.pool.stats();
  if (stats.length === 0 || !stats.every((upstream) => upstream.identity === 'refused')) return;
  const { chain, network: name } = network.config;
  const problems = stats.map((upstream) => `${upstream.upstream}: ${upstream.condition.reason}`).join('; ');
  throw new Error(`no upstream of ${chain}/${name} serves its chain (${problems})`);
}
