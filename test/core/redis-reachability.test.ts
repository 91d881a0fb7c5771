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

  it('a server marked away ends the commands still waiting on it, whatever their budget; other servers wait on', async () => {
    const server = `unit-waiting-${Date.now()}`;
    const never = () => new Promise<never>(() => undefined);
    const limited = whileReachable(server, never).catch((error: unknown) => error);
    const cached = whileReachable(server, never, { marksAway: false }).catch((error: unknown) => error);
    let otherSettled = false;
    void whileReachable(`${server}-other`, never).finally(() => {
      otherSettled = true;
    });
    await expect(whileReachable(server, () => Promise.reject(new Error('Command timed out')))).rejects.toThrow(
      'Command timed out',
    );
    expect(await limited).toBeInstanceOf(RedisAwayError);
    expect(await cached).toBeInstanceOf(RedisAwayError);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(otherSettled).toBe(false);
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

  it('commands queued behind the one that timed out give up with it, not after a timeout of their own', async () => {
    freeze(redis.pid);
    try {
      const from = performance.now();
      const first = limiter.consumeAll(budget, 1).catch((error: unknown) => error);
      // Issued once the first is on the wire: auto-pipelining holds them until it is answered.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const followers = await Promise.all(
        Array.from({ length: 10 }, () => limiter.consumeAll(budget, 1).catch((error: unknown) => error)),
      );
      const elapsedMs = performance.now() - from;
      expect(((await first) as AppError).cause).toMatchObject({ message: 'Command timed out' });
      for (const refused of followers) {
        expect((refused as AppError).code).toBe('service_unavailable');
        expect((refused as AppError).cause).toBeInstanceOf(RedisAwayError);
      }
      // One command timeout (500 ms), not two.
      expect(elapsedMs).toBeLessThan(950);
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await limiter.consumeAll(budget, 1)).allowed).toBe(true);
  });
});
