import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { redisServer, skipWithout } from '../support/requirements.ts';
import { type CachedRpcFixture, rpcCall, startCachedRpc, sumOf } from './cache-setup.ts';

describe('JSON-RPC cache with Redis', () => {
  skipWithout(redisServer);
  let redis: RunningRedis;
  let first: CachedRpcFixture;
  let second: CachedRpcFixture;
  beforeAll(async () => {
    if (redisServer.missing) return;
    redis = await startRedis();
    first = await startCachedRpc({ redisUrl: redis.url });
    second = await startCachedRpc({ redisUrl: redis.url, sharing: first });
    await first.viaBlockyard(rpcCall('anvil_mine', ['0x5']));
    await Promise.all([first.settle(), second.settle()]);
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await redis?.stop();
  });

  it('shares final answers between API processes, byte for byte', async () => {
    const body = rpcCall('eth_getBlockByNumber', ['0x2', true], 21);
    const answer = await first.viaBlockyard(body);
    expect(answer).toBe(await first.viaAnvil(body));
    // The Redis write is fire and forget: it lands well within this.
    await sleep(200);
    expect(await second.viaBlockyard(body)).toBe(answer);
    expect(sumOf(await second.metric('blockyard_rpc_cache_hits_total'), 'layer="redis"')).toBe(1);
    expect(second.upstreamCount('"params":["0x2",true]')).toBe(0);
  });
});
