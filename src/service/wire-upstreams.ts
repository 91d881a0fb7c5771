import { type ChainRegistry, createChainRegistry } from '../chains/registry.ts';
import type { UpstreamConfig } from '../config/chain-settings.ts';
import type { Context } from '../core/context.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import { createMemoryLimiter } from '../limits/memory-limiter.ts';
import { createRedisLimiter } from '../limits/redis-limiter.ts';
import { createRpcCache, type RpcCache } from '../rpc/cache/rpc-cache.ts';

export interface Upstreams {
  readonly chains: ChainRegistry;
  readonly rpcCache: RpcCache;
  readonly limiter: RateLimiter;
}

/** The networks' upstream pools, the JSON-RPC cache and the rate limiter (in memory, or Redis with REDIS_URL). */
export function wireUpstreams(ctx: Context, embeddedUpstream: UpstreamConfig | undefined): Upstreams {
  const { config, metrics, shutdown } = ctx;
  const chains = createChainRegistry(config.chains, { embeddedUpstream, metricsRegistry: metrics.registry });
  shutdown.add('upstreams', () => chains.close());

  const rpcCache = createRpcCache({ networks: chains.list(), registry: metrics.registry, redisUrl: config.redisUrl });
  shutdown.add('rpc cache', () => rpcCache.close());

  const limiter: RateLimiter = config.redisUrl ? createRedisLimiter({ url: config.redisUrl }) : createMemoryLimiter();
  shutdown.add('rate limiter', () => limiter.close());
  return { chains, rpcCache, limiter };
}
