import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeze } from '../support/freeze.ts';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { redisServer, skipWithout } from '../support/requirements.ts';
import { startTestService, type TestService } from '../support/service.ts';

interface Health {
  status: number;
  ms: number;
  body: { status: string; checks: Record<string, string> };
}

/**
 * A node with a configured Redis it cannot reach is not ready: stopped (SIGSTOP: connections accepted,
 * nothing answered) or killed, /healthz answers 503 naming Redis, quickly; ready again once it is back.
 */
describe('/healthz with REDIS_URL', () => {
  skipWithout(redisServer);
  let redis: RunningRedis;
  let t: TestService;
  let stopped = false;

  beforeAll(async () => {
    if (redisServer.missing) return;
    redis = await startRedis();
    t = await startTestService({ redisUrl: redis.url });
  });
  afterAll(async () => {
    if (stopped) process.kill(redis.pid, 'SIGCONT');
    await t?.stop();
    await redis?.stop();
  });

  async function healthz(): Promise<Health> {
    const started = performance.now();
    const response = await fetch(`${t.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    const body = (await response.json()) as Health['body'];
    return { status: response.status, ms: performance.now() - started, body };
  }
  async function eventuallyHealth(status: number, timeoutMs: number): Promise<Health> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const health = await healthz();
      if (health.status === status) return health;
      if (Date.now() > deadline) throw new Error(`/healthz not ${status} within ${timeoutMs} ms: ${JSON.stringify(health)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('is ready with Redis answering, and reports it', async () => {
    const health = await eventuallyHealth(200, 5_000);
    expect(health.body.checks.redis).toBe('ok');
    // Redis answered at start: nothing kept the node from being ready.
    expect(t.service.notReady).toEqual([]);
  });

  it('a stopped Redis (SIGSTOP) makes the node not ready within a second per check, naming Redis; SIGCONT brings it back', async () => {
    freeze(redis.pid);
    stopped = true;
    const down = await healthz();
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('unavailable');
    expect(down.body.checks.redis).toMatch(/^error: .*timed out/i);
    expect(down.body.checks.database).toBe('ok');
    expect(down.ms).toBeLessThan(1_500);
    process.kill(redis.pid, 'SIGCONT');
    stopped = false;
    expect((await eventuallyHealth(200, 5_000)).body.checks.redis).toBe('ok');
  });

  it('a killed Redis makes the node not ready at once; a Redis started again on its port makes it ready', async () => {
    const { port } = redis;
    await redis.stop();
    const down = await eventuallyHealth(503, 5_000);
    expect(down.body.checks.redis).toMatch(/^error: not connected/);
    expect(down.ms).toBeLessThan(1_500);
    redis = await startRedis({ port });
    expect((await eventuallyHealth(200, 10_000)).body.checks.redis).toBe('ok');
  }, 20_000);
});
