import type { Registry } from 'prom-client';
import type { ChainConfig, UpstreamConfig } from '../config/chain-settings.ts';
import { notFound } from '../core/errors.ts';
import type { UpstreamClient } from './upstream-client.ts';
import { createUpstreamMetrics } from './upstream-metrics.ts';
import { createUpstreamPool, type UpstreamPool } from './upstream-pool.ts';

/** A configured chain/network and the pool of upstreams that reaches it. */
export interface Network {
  readonly config: ChainConfig;
  readonly pool: UpstreamPool;
  /** The same pool, seen as a plain client (reads routed and failed over like `pool.send`). */
  readonly upstream: UpstreamClient;
}

export interface ChainRegistry {
  /** The network at `{chain}/{network}`, or `not_found` naming what is configured. */
  get(chain: string, network: string): Network;
  list(): readonly Network[];
  close(): Promise<void>;
}

/** Head polls at most this often, whatever the block time (a 0.1 s devnet must not be flooded). */
const minHeadPollMs = 250;
/** About 10 s of Solana slots. */
const solanaMaxLagSlots = 25;

export function createChainRegistry(
  chains: readonly ChainConfig[],
  options: { embeddedUpstream?: UpstreamConfig; metricsRegistry?: Registry } = {},
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
      headPollMs: Math.max(minHeadPollMs, config.blockTimeS * 1000),
      // Solana heads are slots (0.4 s): providers routinely differ by a few, so only a large gap counts.
      maxLagBlocks: config.kind === 'solana' ? solanaMaxLagSlots : undefined,
      metrics,
    });
    return { config: resolved, pool, upstream: pool };
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
    async close() {
      await Promise.all(networks.map((network) => network.pool.close()));
    },
  };
}
