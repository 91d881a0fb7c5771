import type { ChainConfig, UpstreamConfig } from '../config/schema.ts';
import { notFound } from '../core/errors.ts';
import { createUpstreamClient, type UpstreamClient } from './upstream-client.ts';

/** A configured chain/network and the client that reaches it. */
export interface Network {
  readonly config: ChainConfig;
  readonly upstream: UpstreamClient;
}

export interface ChainRegistry {
  /** The network at `{chain}/{network}`, or `not_found` naming what is configured. */
  get(chain: string, network: string): Network;
  list(): readonly Network[];
  close(): Promise<void>;
}

export function createChainRegistry(
  chains: readonly ChainConfig[],
  options: { embeddedUpstream?: UpstreamConfig } = {},
): ChainRegistry {
  const networks = chains.map((config): Network => {
    const upstream = config.embedded ? options.embeddedUpstream : config.upstreams[0];
    if (!upstream) throw new Error(`no upstream for ${config.chain}/${config.network}`);
    const resolved: ChainConfig = config.embedded ? { ...config, upstreams: [upstream] } : config;
    return { config: resolved, upstream: createUpstreamClient({ url: upstream.url }) };
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
      await Promise.all(networks.map((network) => network.upstream.close()));
    },
  };
}
