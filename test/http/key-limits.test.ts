import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyLimits } from '../../src/keys/key-settings.ts';
import { withinOneSecond } from '../support/one-second.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { twoServicesOnRedis } from '../support/services-on-redis.ts';

const blockNumber = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };

/** A key's own limits, through the admin API. */
async function setKeyLimits(t: TestService, keyId: string, limits: KeyLimits): Promise<void> {
  const changed = await t.admin('PATCH', `/admin/keys/${keyId}`, { limits });
  if (changed.status !== 200) throw new Error(`PATCH /admin/keys answered ${changed.status}: ${JSON.stringify(changed.body)}`);
}

/** A second key of the account. */
async function anotherKey(t: TestService, accountId: string): Promise<string> {
  const created = await t.admin('POST', `/admin/accounts/${accountId}/keys`, { name: 'second', environment: 'test' });
  if (created.status !== 201) throw new Error(`key creation failed: ${JSON.stringify(created.body)}`);
  return created.body.key;
}

type ErrorBody = { error: { code: string; message: string; status: number } };

describe("a key's own limits under its account's (in-memory counters)", () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  it('a key limited to 3 rps under an account of 10 gets 429 at its 4th request in a second; another key of the account passes', async () => {
    const { key, keyId, accountId } = await t.createKey({ plan: 'free' });
    await setKeyLimits(t, keyId, { rps: 3 });
    const other = await anotherKey(t, accountId);
    const [responses, otherResponse] = await withinOneSecond(async () => {
      const sequential: Response[] = [];
      for (let i = 0; i < 4; i++) sequential.push(await t.rpc(key, blockNumber));
      return [sequential, await t.rpc(other, blockNumber)] as const;
    });
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    // The headers show the key's limit: it has fewer requests left than the account this second.
    expect(responses.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(['3', '3', '3', '3']);
    expect(responses.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    // The account's day and CU budgets are the only ones there: the account's.
    expect(responses[0]!.headers.get('x-ratelimit-limit-day')).toBe('100000');
    const refused = responses[3]!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as ErrorBody).error).toEqual({
      code: 'rate_limited',
      status: 429,
      message: "rate limit exceeded: this key's requests per second; retry after 1 s",
    });
    // The other key spends the account's budget only: 10, of which the first key's 3 are gone (its refusal counted nothing).
    expect(otherResponse.status).toBe(200);
    expect(otherResponse.headers.get('x-ratelimit-limit')).toBe('10');
    expect(otherResponse.headers.get('x-ratelimit-remaining')).toBe('6');
  });

  it("the account's limit still refuses with its own message when the key's is higher", async () => {
    const { key, keyId } = await t.createKey({ plan: 'free' });
    await setKeyLimits(t, keyId, { rps: 50, rpd: 1_000 });
    const responses = await withinOneSecond(() => Promise.all(Array.from({ length: 12 }, () => t.rpc(key, blockNumber))));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
    const refused = responses.find((r) => r.status === 429)!;
    expect(((await refused.json()) as ErrorBody).error.message).toBe('rate limit exceeded: requests per second; retry after 1 s');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('10');
    // The day: the key's 1,000 has fewer left than the account's 100,000.
    expect(refused.headers.get('x-ratelimit-limit-day')).toBe('1000');
    expect(refused.headers.get('x-ratelimit-remaining-day')).toBe('990');
  });

  it("a key's daily limit refuses until midnight, and its CU budget refuses a batch it could never pay (REST too)", async () => {
    const { key, keyId } = await t.createKey({ plan: 'enterprise' });
    await setKeyLimits(t, keyId, { rpd: 2, cups: 30 });
    const batch = Array.from({ length: 40 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }));
    const tooBig = await t.rpc(key, batch);
    expect(tooBig.status).toBe(400);
    expect(((await tooBig.json()) as ErrorBody).error.message).toMatch(
      /'batch'.*costs 40 compute units, more than the 30 this key allows/,
    );
    const rest = await fetch(`${t.url}/v1/usage`, { headers: { 'x-api-key': key } });
    expect(rest.headers.get('x-ratelimit-limit-day')).toBe('2');
    expect(rest.headers.get('x-ratelimit-remaining-day')).toBe('0');
    expect(((await rest.json()) as { key_limits: unknown }).key_limits).toEqual({ rps: null, rpd: 2, cups: 30 });
    const refused = await t.rpc(key, blockNumber);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1);
    expect(((await refused.json()) as ErrorBody).error.message).toMatch(
      /^rate limit exceeded: this key's requests per day; retry after \d+ s$/,
    );
  });
});

describe("a key's own limits shared through Redis by two service processes", () => {
  const services = twoServicesOnRedis();

  it('30 parallel requests over two processes against a key of 3 rps under an account of 10: exactly 3 pass', async () => {
    const { a, b } = services;
    const { key, keyId, accountId } = await a.createKey({ plan: 'free' });
    await setKeyLimits(a, keyId, { rps: 3 });
    const other = await anotherKey(a, accountId);
    const [responses, otherResponses] = await withinOneSecond(async () => {
      const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).rpc(key, blockNumber)));
      return [burst, await Promise.all([a.rpc(other, blockNumber), b.rpc(other, blockNumber)])] as const;
    });
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(27);
    expect(otherResponses.map((r) => r.status)).toEqual([200, 200]);
    expect(otherResponses.map((r) => r.headers.get('x-ratelimit-remaining')).sort()).toEqual(['5', '6']);
  });
});
