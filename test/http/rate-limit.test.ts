import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinOneSecond } from '../support/one-second.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { twoServicesOnRedis } from '../support/services-on-redis.ts';

const blockNumber = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };

/** Fires `count` requests at once, spread over the given senders, within one rate-limit second. */
function burst(count: number, send: ((i: number) => Promise<Response>)[]): Promise<Response[]> {
  return withinOneSecond(() => Promise.all(Array.from({ length: count }, (_, i) => send[i % send.length]!(i))));
}

describe('rate limits over HTTP (in-memory counters)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  it('50 parallel requests against a 10 rps limit: exactly 10 accepted, the rest 429 with Retry-After', async () => {
    const { key } = await t.createKey({ plan: 'free' });
    const responses = await burst(50, [() => t.rpc(key, blockNumber)]);
    const accepted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(10);
    expect(refused).toHaveLength(40);
    for (const response of refused) {
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(response.headers.get('x-ratelimit-limit')).toBe('10');
      expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(Number(response.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
      const body = (await response.json()) as { error: { code: string; status: number; message: string } };
      expect(body.error).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(body.error.message).toMatch(/requests per second/);
    }
  });

  it('every response carries the limit headers, errors included', async () => {
    const { key } = await t.createKey({ plan: 'growth' });
    const ok = await t.rpc(key, blockNumber);
    const notFound = await t.rpc(key, blockNumber, '/v1/rpc/ethereum/nowhere');
    const badBody = await t.rpc(key, 'nope');
    const forbidden = await t.rpc((await t.createKey({ plan: 'growth', scopes: ['data:read'] })).key, blockNumber);
    const unauthorized = await t.rpc(undefined, blockNumber);
    for (const response of [ok, notFound, badBody, forbidden, unauthorized]) {
      expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
      expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
    }
    expect([ok.status, notFound.status, badBody.status, forbidden.status, unauthorized.status]).toEqual([
      200, 404, 400, 403, 401,
    ]);
    expect(ok.headers.get('x-ratelimit-limit')).toBe('100');
    expect(ok.headers.get('x-ratelimit-limit-day')).toBe('5000000');
    expect(ok.headers.get('x-ratelimit-limit-cu')).toBe('2000');
  });

  it('a daily limit refuses with Retry-After until the next UTC midnight', async () => {
    const { key } = await t.createKey({ plan: 'enterprise', limits: { rpd: 2 } });
    expect((await t.rpc(key, blockNumber)).status).toBe(200);
    expect((await t.rpc(key, blockNumber)).status).toBe(200);
    const refused = await t.rpc(key, blockNumber);
    expect(refused.status).toBe(429);
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Math.abs(now.getTime() / 1000 + retryAfter - midnight)).toBeLessThan(5);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/requests per day/);
  });

  it('a compute-unit budget refuses a batch that costs more than the plan allows per second', async () => {
    const { key } = await t.createKey({ plan: 'enterprise', limits: { cups: 30 } });
    const batch = Array.from({ length: 40 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }));
    const refused = await t.rpc(key, batch);
    // It can never pass: a 400 naming the cost and the budget, not a 429 a client would retry forever.
    expect(refused.status).toBe(400);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /'batch'.*costs 40 compute units, more than the 30/,
    );
  });

  it('enterprise accounts without limits are not limited, and send no per-second headers', async () => {
    const { key } = await t.createKey({ plan: 'enterprise' });
    const responses = await Promise.all(Array.from({ length: 60 }, () => t.rpc(key, blockNumber)));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses[0]!.headers.get('x-ratelimit-limit-day')).toBeNull();
  });
});

describe('rate limits shared through Redis by two service processes', () => {
  const services = twoServicesOnRedis();

  it('50 parallel requests split over two processes against a 10 rps limit: exactly 10 accepted', async () => {
    const { key } = await services.a.createKey({ plan: 'free' });
    const responses = await burst(50, [() => services.a.rpc(key, blockNumber), () => services.b.rpc(key, blockNumber)]);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(40);
  });

  it('with Redis gone, a limited request is refused with 503 and Retry-After, not a 500', async () => {
    const { key } = await services.a.createKey({ plan: 'free' });
    expect((await services.a.rpc(key, blockNumber)).status).toBe(200);
    await services.redis.stop();
    const response = await services.a.rpc(key, blockNumber);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('service_unavailable');
    expect(body.error.message).toMatch(/rate limiting is unavailable/);
  });
});
