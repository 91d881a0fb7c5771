import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { connectRaw } from '../ws/support/ws-client.ts';

const trace = (id: number) => ({ jsonrpc: '2.0', id, method: 'debug_traceBlockByNumber', params: ['0x0'] });

/**
 * A request whose compute units alone exceed the plan's per-second budget can never pass: clients
 * retry 429 forever (docs/errors.md), so it must be a 400 that says why, not a 429 with Retry-After.
 */
describe('a request that costs more than the per-second CU budget is 400, not 429', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  it('a JSON-RPC batch over the free plan (200 CU/s): 400 naming the batch, its cost and the budget; counted as 0 CU', async () => {
    const { key } = await t.createKey({ plan: 'free' });
    const response = await t.rpc(key, [trace(1), trace(2)]);
    expect(response.status).toBe(400);
    expect(response.headers.get('retry-after')).toBeNull();
    expect(response.headers.get('x-ratelimit-limit-cu')).toBe('200');
    const { error } = (await response.json()) as { error: { code: string; message: string; status: number } };
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      "invalid parameter 'batch': this request costs 400 compute units, more than the 200 the plan allows per second, so it can never pass; split it into smaller requests",
    );
    // Nothing of the budget was spent: the same calls one by one pass.
    const one = await t.rpc(key, trace(3));
    expect(one.status).toBe(200);
  });

  it('a single call over an account whose CU/s is overridden to 50: 400 naming the method', async () => {
    const { key } = await t.createKey({ plan: 'free', limits: { cups: 50 } });
    const response = await t.rpc(key, trace(1));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /^invalid parameter 'method': this request costs 200 compute units, more than the 50/,
    );
  });

  it('a REST route that costs more than the budget: 400, no Retry-After', async () => {
    const { key } = await t.createKey({ plan: 'free', limits: { cups: 4 } });
    const response = await fetch(`${t.url}/v1/usage`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(10_000) });
    expect(response.status).toBe(400);
    expect(response.headers.get('retry-after')).toBeNull();
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
      /costs 5 compute units, more than the 4 the plan allows per second/,
    );
  });

  it('over WebSocket: each call of the message gets -32600 with the reason, and the socket stays open', async () => {
    const { key } = await t.createKey({ plan: 'free' });
    const client = await connectRaw(`${t.url.replace('http', 'ws')}/v1/ws/ethereum/devnet?apiKey=${key}`);
    try {
      client.send([trace(1), trace(2)]);
      const answers = await client.waitFor((m) => Array.isArray(m));
      for (const answer of answers) {
        expect(answer.error.code).toBe(-32600);
        expect(answer.error.message).toMatch(/costs 400 compute units, more than the 200 the plan allows per second/);
        expect(answer.error.data).toBeUndefined();
      }
      expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    } finally {
      client.close();
    }
  });
});
