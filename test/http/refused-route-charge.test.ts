import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restrictKey } from '../support/key-restrictions.ts';
import { withinOneSecond } from '../support/one-second.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * A REST route that refuses the key (its scope, its `methods` or `contracts`) counts the request as
 * one of 0 compute units (docs/compute-units.md, "What refused requests cost"), as a refused
 * JSON-RPC call does: it was charged the route's full price before the scope was checked.
 */
describe('a REST request refused for its scope or restrictions costs no compute units', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  const get = (key: string, path: string) =>
    fetch(`${t.url}${path}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(10_000) });

  /** The refusal's status and what it spent: compute units of this second, requests of the day. */
  async function spent(key: string, path: string) {
    return withinOneSecond(async () => {
      const refused = await get(key, path);
      const body = (await refused.json()) as { error?: { code?: string } };
      const after = await get(key, '/v1/gas/ethereum/prices');
      await after.arrayBuffer();
      return {
        status: refused.status,
        code: body.error?.code,
        cu: Number(refused.headers.get('x-ratelimit-limit-cu')) - Number(refused.headers.get('x-ratelimit-remaining-cu')),
        day: Number(refused.headers.get('x-ratelimit-limit-day')) - Number(refused.headers.get('x-ratelimit-remaining-day')),
        cuAfter: Number(after.headers.get('x-ratelimit-limit-cu')) - Number(after.headers.get('x-ratelimit-remaining-cu')),
      };
    });
  }

  it('a missing scope: 403, counted as a request, 0 CU (headers and the next request agree)', async () => {
    const { key } = await t.createKey({ plan: 'free', scopes: ['data:read'] });
    for (const path of ['/v1/webhooks', '/v1/wallets', '/v1/gas/policies']) {
      const result = await spent(key, path);
      expect(result, path).toMatchObject({ status: 403, code: 'forbidden', cu: 0, cuAfter: 5 });
      expect(result.day, path).toBeGreaterThanOrEqual(1);
    }
  });

  it("a route the key's methods list does not hold, or a contract its contracts list does not: 403, 0 CU", async () => {
    const { key, keyId } = await t.createKey({ plan: 'free' });
    await restrictKey(t, keyId, {
      methods: ['gas.prices', 'tokens.metadata'],
      contracts: ['0x00000000000000000000000000000000000000aa'],
    });
    const methods = await spent(key, '/v1/nfts/ethereum/owned/0x0000000000000000000000000000000000000001');
    expect(methods).toMatchObject({ status: 403, code: 'forbidden', cu: 0, cuAfter: 5 });
    const contracts = await spent(key, '/v1/tokens/ethereum/metadata/0x00000000000000000000000000000000000000bb');
    expect(contracts).toMatchObject({ status: 403, code: 'forbidden', cu: 0, cuAfter: 5 });
  });

  it('a key over its rate limit still gets the 429 first, not the 403', async () => {
    const { key } = await t.createKey({ plan: 'free', scopes: ['data:read'] });
    const statuses = await withinOneSecond(async () => {
      const answers = await Promise.all(Array.from({ length: 12 }, () => get(key, '/v1/webhooks')));
      return answers.map((answer) => answer.status);
    });
    expect(statuses.filter((status) => status === 403)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2);
  });
});
