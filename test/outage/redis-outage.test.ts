import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeze } from '../support/freeze.ts';
import { metricSum } from '../support/metric-sum.ts';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { type OutageService, type OwnAnvil, startOutageService, startOwnAnvil } from './outage-service.ts';
import { probeThroughout, recoveredWithin } from './probes.ts';
import { watchProcessHealth } from './process-health.ts';

/** Issue 20: the Redis of REDIS_URL (rate limits, shared RPC answers) stopped, then started on the same port. */
describe('outage: Redis stopped and started again', () => {
  let anvil: OwnAnvil;
  let redis: RunningRedis;
  let s: OutageService;
  const health = watchProcessHealth();

  beforeAll(async () => {
    [anvil, redis] = await Promise.all([startOwnAnvil(), startRedis()]);
    s = await startOutageService({ anvil, redisUrl: redis.url });
    await s.assertPipelineWorks(15_000);
    expect(await metricSum(s.service.url, 'blockyard_dependency_connections_lost_total', { dependency: 'redis' })).toBe(0);
  }, 90_000);
  afterAll(async () => {
    await s?.close();
    await Promise.all([anvil?.close(), redis?.stop()]);
    health.stop();
  }, 60_000);

  it('answers within 2 s while it is down (503 with Retry-After), and works again within 10 s of its return', async () => {
    await redis.stop();
    const during = await probeThroughout(s.target, 4_000);
    expect(during.some((result) => result.status === 503)).toBe(true);
    redis = await startRedis({ port: redis.port });
    const back = Date.now();
    await recoveredWithin(s.target, 10_000);
    await s.assertPipelineWorks(10_000 - (Date.now() - back));
    expect(health.problems()).toEqual([]);
    // The readiness connection was lost once (its failed reconnects are not more losses).
    expect(await metricSum(s.service.url, 'blockyard_dependency_connections_lost_total', { dependency: 'redis' })).toBe(1);
  }, 60_000);

  it('answers within 2 s while it is stopped (SIGSTOP: commands hang), and works again once it continues', async () => {
    freeze(redis.pid);
    try {
      const during = await probeThroughout(s.target, 4_000);
      expect(during.some((result) => result.status === 503)).toBe(true);
    } finally {
      process.kill(redis.pid, 'SIGCONT');
    }
    const back = Date.now();
    await recoveredWithin(s.target, 10_000);
    await s.assertPipelineWorks(10_000 - (Date.now() - back));
    expect(health.problems()).toEqual([]);
  }, 60_000);
});
