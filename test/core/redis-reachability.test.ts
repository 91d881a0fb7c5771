import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.ts';
import { RedisAwayError, whileReachable } from '../../src/core/redis-reachability.ts';
import type { DataQuerySlots } from '../../src/limits/data-query-slots.ts';
import type { RateLimiter } from '../../src/limits/limiter.ts';
import { createRedisDataQuerySlots } from '../../src/limits/redis-data-query-slots.ts';
import { createRedisLimiter } from '../../src/limits/redis-limiter.ts';
import { freeze } from '../support/freeze.ts';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { redisServer, skipWithout } from '../support/requirements.ts';

const budget = [{ id: 'acct_reach', limits: { rps: 100, rpd: null, cups: null } }];

describe('whileReachable', () => {
  it('only a command timeout marks the server away; other failures and answers do not', async () => {
    const server = `unit-${Date.now()}`;
    await expect(whileReachable(server, () => Promise.reject(new Error('NOSCRIPT')))).rejects.toThrow('NOSCRIPT');
    expect(await whileReachable(server, async () => 'answered')).toBe('answered');
    await expect(whileReachable(server, () => Promise.reject(new Error('Command timed out')))).rejects.toThrow(
      'Command timed out',
    );
    let asked = false;
    await expect(
      whileReachable(server, async () => {
        asked = true;
      }),
    ).rejects.toBeInstanceOf(RedisAwayError);
    expect(asked).toBe(false);
    // A command of a shorter budget that times out does not mark its server away.
    const cacheServer = `${server}-cache`;
    await expect(
      whileReachable(cacheServer, () => Promise.reject(new Error('Command timed out')), { marksAway: false }),
    ).rejects.toThrow('Command timed out');
    expect(await whileReachable(cacheServer, async () => 'answered')).toBe('answered');
    // Another server is not affected.
    expect(await whileReachable(`${server}-other`, async () => 'answered')).toBe('answered');
  });
});

describe('a hanging Redis costs a request one command timeout, not one per use', () => {
  skipWithout(redisServer);
  let redis: RunningRedis;
  let limiter: RateLimiter;
  let slots: DataQuerySlots;

  beforeAll(async () => {
    if (redisServer.missing) return;
    redis = await startRedis();
    limiter = createRedisLimiter({ url: redis.url });
    slots = createRedisDataQuerySlots(redis.url, 5);
    expect((await limiter.consumeAll(budget, 1)).allowed).toBe(true);
    (await slots.take('acct_reach'))();
  });
  afterAll(async () => {
    if (redis) process.kill(redis.pid, 'SIGCONT');
    await slots?.close();
    await limiter?.close();
    await redis?.stop();
  });

  it('the slot times out and falls back to the local cap; the rate limit then answers 503 at once; both use Redis again after', async () => {
    freeze(redis.pid);
    try {
      let from = performance.now();
      const release = await slots.take('acct_reach');
      const slotMs = performance.now() - from;
      release();
      expect(slotMs).toBeGreaterThanOrEqual(450);
      from = performance.now();
      const refused = await limiter.consumeAll(budget, 1).catch((error: unknown) => error);
      const limiterMs = performance.now() - from;
      expect(refused).toBeInstanceOf(AppError);
      expect((refused as AppError).code).toBe('service_unavailable');
      // No command was sent: no 500 ms command timeout was waited for.
      expect(limiterMs).toBeLessThan(250);
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await limiter.consumeAll(budget, 1)).allowed).toBe(true);
  });
});
