import { createRedisSharedTipStore } from '../chains/redis-shared-tip-store.ts';
import { type ChainRegistry, createChainRegistry } from '../chains/registry.ts';
import type { UpstreamConfig } from '../config/chain-settings.ts';
import type { Context } from '../context/context.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import { createMemoryLimiter } from '../limits/memory-limiter.ts';
import { createRedisLimiter } from '../limits/redis-limiter.ts';
import { createRpcCache, type RpcCache } from '../rpc/cache/rpc-cache.ts';

/** A node down at start is not a reason to wait long: it is checked again at every head poll. */
const identityCheckAtStartMs = 5_000;

export interface Upstreams {
  readonly chains: ChainRegistry;
  readonly rpcCache: RpcCache;
  readonly limiter: RateLimiter;
}

/**
 * The networks' upstream pools (their served tips shared through Redis with REDIS_URL), the JSON-RPC
 * cache and the rate limiter (in memory, or Redis with REDIS_URL). Waits for the upstreams' first identity checks: a network whose every upstream serves
 * another chain stops the start.
 */
export async function wireUpstreams(ctx: Context, embeddedUpstream: UpstreamConfig | undefined): Promise<Upstreams> {
  const { config, metrics, shutdown, logger } = ctx;
  // With REDIS_URL the API processes share each network's served tip: eth_blockNumber never goes back
  // for a client whose requests land on different processes.
  const sharedTips = config.redisUrl ? createRedisSharedTipStore(config.redisUrl) : undefined;
  if (sharedTips) shutdown.add('shared tips', () => sharedTips.close());
  const chains = createChainRegistry(config.chains, {
    embeddedUpstream,
    metricsRegistry: metrics.registry,
    logger,
    sharedTips,
  });
  shutdown.add('upstreams', () => chains.close());
  await chains.verifyIdentities(identityCheckAtStartMs);

  const rpcCache = createRpcCache({ networks: chains.list(), registry: metrics.registry, redisUrl: config.redisUrl });
  shutdown.add('rpc cache', () => rpcCache.close());

  const limiter: RateLimiter = config.redisUrl ? createRedisLimiter({ url: config.redisUrl }) : createMemoryLimiter();
  shutdown.add('rate limiter', () => limiter.close());
  return { chains, rpcCache, limiter };
}
