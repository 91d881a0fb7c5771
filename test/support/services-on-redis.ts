import { afterAll, beforeAll } from 'vitest';
import { type RunningRedis, startRedis } from './redis.ts';
import { redisServer, skipWithout } from './requirements.ts';
import { startTestService, type TestService } from './service.ts';

/**
 * Two service processes on one database sharing a Redis, for the enclosing `describe` (skipped with
 * what to install when redis-server is missing). Read `a`, `b` and `redis` inside the tests.
 */
export function twoServicesOnRedis(): { readonly a: TestService; readonly b: TestService; readonly redis: RunningRedis } {
  skipWithout(redisServer);
  let redis: RunningRedis | undefined;
  const services: { a?: TestService; b?: TestService } = {};
  beforeAll(async () => {
    if (redisServer.missing) return;
    redis = await startRedis();
    services.a = await startTestService({ redisUrl: redis.url });
    services.b = await startTestService({ redisUrl: redis.url, sharing: services.a });
  });
  afterAll(async () => {
    await services.b?.stop();
    await services.a?.stop();
    await redis?.stop();
  });
  return {
    get a() {
      return services.a!;
    },
    get b() {
      return services.b!;
    },
    get redis() {
      return redis!;
    },
  };
}
