import { describe, expect, it } from 'vitest';
import { withinOneSecond } from '../support/one-second.ts';
import { upgrade } from './support/upgrade.ts';
import { connectRaw, type Message } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

type Totals = { requests: number; compute_units: number; rate_limited: number };

describe('WebSocket traffic in GET /v1/usage', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started));

  /** The account's usage by `group_by`, after this process has written what it counted. */
  async function usageOf(reader: string, groupBy: string): Promise<Record<string, Totals>> {
    await s.t.service.usage!.flushNow();
    const response = await fetch(`${s.t.url}/v1/usage?group_by=${groupBy}&granularity=minute&from=${since}`, {
      headers: { 'x-api-key': reader },
      signal: AbortSignal.timeout(10_000),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { series: { group: string; points: Totals[] }[] };
    const sums: Record<string, Totals> = {};
    for (const series of body.series) {
      const sum = { requests: 0, compute_units: 0, rate_limited: 0 };
      for (const point of series.points) {
        sum.requests += point.requests;
        sum.compute_units += point.compute_units;
        sum.rate_limited += point.rate_limited;
      }
      sums[series.group] = sum;
    }
    // The reader's own earlier reads: REST requests without a network.
    if (groupBy === 'network') delete sums[''];
    return sums;
  }
  const since = new Date(Date.now() - 120_000).toISOString();
  /** Another key of the account, to read its usage with (its own reads are REST requests, not asserted). */
  async function readerOf(accountId: string): Promise<string> {
    return (await s.t.admin('POST', `/admin/accounts/${accountId}/keys`, { name: 'reader', environment: 'test' })).body
      .key as string;
  }

  it('counts the opening and each call of a message with the compute units charged, as HTTP counts a batch', async () => {
    const { key: own, accountId } = await s.t.createKey();
    const reader = await readerOf(accountId);
    const client = await connectRaw(s.wsUrl(own));
    expect((await client.call('eth_blockNumber')).result).toMatch(/^0x/);
    const subscribed = await client.call('eth_subscribe', ['newHeads']);
    expect(subscribed.result).toMatch(/^0x/);
    client.send([
      { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 'b', method: 'eth_getBalance', params: ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'latest'] },
      { jsonrpc: '2.0', id: 'c', method: 'eth_unsubscribe', params: [subscribed.result] },
    ]);
    const batch: Message = await client.waitFor((message) => Array.isArray(message));
    expect(batch.map((answer: Message) => answer.id).sort()).toEqual(['a', 'b', 'c']);
    client.send('{not json');
    expect((await client.waitFor((message) => message.error?.code === -32700)).id).toBeNull();
    client.close();

    expect(await usageOf(reader, 'method')).toEqual({
      '(websocket)': { requests: 1, compute_units: 0, rate_limited: 0 },
      eth_blockNumber: { requests: 1, compute_units: 1, rate_limited: 0 },
      eth_subscribe: { requests: 1, compute_units: 10, rate_limited: 0 },
      eth_chainId: { requests: 1, compute_units: 1, rate_limited: 0 },
      eth_getBalance: { requests: 1, compute_units: 5, rate_limited: 0 },
      eth_unsubscribe: { requests: 1, compute_units: 1, rate_limited: 0 },
      '(unparsed)': { requests: 1, compute_units: 0, rate_limited: 0 },
    });
    const byNetwork = await usageOf(reader, 'network');
    expect(Object.keys(byNetwork)).toEqual(['ethereum/devnet']);
  });

  it('counts a message refused as too costly, and a refused upgrade, as 4xx with no compute units', async () => {
    const { key: own, keyId, accountId } = await s.t.createKey();
    const reader = await readerOf(accountId);
    expect((await s.t.admin('PATCH', `/admin/keys/${keyId}`, { limits: { cups: 3 } })).status).toBe(200);
    const client = await connectRaw(s.wsUrl(own));
    expect((await client.call('eth_chainId')).result).toBe('0x7a69');
    const tooCostly = await client.call('eth_getBalance', ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'latest']);
    expect(tooCostly.error?.code).toBe(-32600);
    client.close();
    // A test key on a mainnet: 403 after authentication, so the account's.
    expect((await upgrade(s.wsUrl(own, 'ethereum/mainnet'))).status).toBe(403);
    // A key the service does not know is nobody's usage, as on HTTP.
    expect((await upgrade(s.wsUrl(`svc_test_${'1'.repeat(44)}`))).status).toBe(401);

    expect(await usageOf(reader, 'status')).toEqual({
      '2xx': { requests: 2, compute_units: 1, rate_limited: 0 },
      '4xx': { requests: 2, compute_units: 0, rate_limited: 0 },
    });
    expect(Object.keys(await usageOf(reader, 'network')).sort()).toEqual(['ethereum/devnet', 'ethereum/mainnet']);
  });

  it('counts a message over the rate limit as 429, charged nothing', async () => {
    const { key: limited, keyId, accountId } = await s.t.createKey();
    const reader = await readerOf(accountId);
    expect((await s.t.admin('PATCH', `/admin/keys/${keyId}`, { limits: { rps: 2 } })).status).toBe(200);
    const seen = { opened: 0, answered: 0, refused: 0 };
    await withinOneSecond(async () => {
      const client = await connectRaw(s.wsUrl(limited));
      seen.opened++;
      for (let i = 0; i < 3; i++) {
        const answer = await client.call('eth_chainId');
        if (answer.result !== undefined) seen.answered++;
        else {
          expect(answer.error?.code).toBe(-32005);
          seen.refused++;
        }
      }
      client.close();
    });
    expect(seen.refused).toBeGreaterThanOrEqual(1);
    expect(await usageOf(reader, 'status')).toEqual({
      '2xx': { requests: seen.opened + seen.answered, compute_units: seen.answered, rate_limited: 0 },
      '429': { requests: seen.refused, compute_units: 0, rate_limited: seen.refused },
    });
  });
});
