import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUsageStore } from '../../src/usage/store.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** One expected row of usage: what the test sent and what it should have been charged. */
interface Sent {
  key: string;
  network: string;
  method: string;
  status: '2xx' | '4xx' | '429' | '5xx';
  requests: number;
  cu: number;
}

type Grouping = 'key' | 'method' | 'network' | 'status';

const call = (method: string, params: unknown[] = [], id = 1) => ({ jsonrpc: '2.0', id, method, params });
const holder = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const usageMethod = 'GET /v1/usage';

/** Sums of the expected rows by the endpoint's grouping. */
function expectedBy(sent: readonly Sent[], groupBy: Grouping) {
  const sums: Record<string, { requests: number; compute_units: number; rate_limited: number }> = {};
  for (const row of sent) {
    const group = { key: row.key, method: row.method, network: row.network, status: row.status }[groupBy];
    sums[group] ??= { requests: 0, compute_units: 0, rate_limited: 0 };
    sums[group].requests += row.requests;
    sums[group].compute_units += row.cu;
    if (row.status === '429') sums[group].rate_limited += row.requests;
  }
  return sums;
}

/** The series of an answer, each summed over its points. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
function observedBy(body: any, skip: (group: string) => boolean = () => false) {
  const sums: Record<string, { requests: number; compute_units: number; rate_limited: number }> = {};
  for (const series of body.series) {
    if (skip(series.group)) continue;
    sums[series.group] = { requests: 0, compute_units: 0, rate_limited: 0 };
    for (const point of series.points) {
      sums[series.group]!.requests += point.requests;
      sums[series.group]!.compute_units += point.compute_units;
      sums[series.group]!.rate_limited += point.rate_limited;
    }
  }
  return sums;
}

describe('GET /v1/usage', () => {
  let t: TestService;
  let second: TestService;
  let check: ReturnType<typeof createResponseChecker>;
  /** Account A: two keys with traffic, a third that only reads usage (its own reads are not asserted). */
  let a: { accountId: string; key1: string; key1Id: string; key2: string; key2Id: string; reader: string; readerId: string };
  /** Account B: 1 request per second, so most of a burst is refused. */
  let b: { key: string; keyId: string };
  const sentA: Sent[] = [];
  const sentB: Sent[] = [];

  const usage = async (key: string, query = '') => {
    const response = await fetch(`${t.url}/v1/usage${query}`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });
    const body = await response.json();
    check('GET', '/v1/usage', response.status, body);
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
    return { status: response.status, body: body as any };
  };
  const rest = (service: TestService, key: string, path: string) =>
    fetch(`${service.url}${path}`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(10_000) });

  beforeAll(async () => {
    t = await startTestService();
    // A second API process of the same deployment: the counts of both add up in one table.
    second = await startTestService({ sharing: t });
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    check = createResponseChecker(doc);

    const first = await t.createKey();
    const addKey = async () => {
      const created = await t.admin('POST', `/admin/accounts/${first.accountId}/keys`, { name: 'another', environment: 'test' });
      return { key: created.body.key as string, id: created.body.id as string };
    };
    const [k2, reader] = [await addKey(), await addKey()];
    a = {
      accountId: first.accountId,
      key1: first.key,
      key1Id: first.keyId,
      key2: k2.key,
      key2Id: k2.id,
      reader: reader.key,
      readerId: reader.id,
    };
    const limited = await t.createKey({ plan: 'free', limits: { rps: 1 } });
    b = { key: limited.key, keyId: limited.keyId };

    const devnet = 'ethereum/devnet';
    const k1 = a.key1Id;
    // JSON-RPC, the fast path: single calls and a batch (each call counts, with its own compute units).
    for (let i = 0; i < 3; i++) expect((await t.rpc(a.key1, call('eth_blockNumber'))).status).toBe(200);
    sentA.push({ key: k1, network: devnet, method: 'eth_blockNumber', status: '2xx', requests: 3, cu: 3 });
    const batch = [call('eth_chainId', [], 1), call('eth_blockNumber', [], 2), call('eth_getBalance', [holder, 'latest'], 3)];
    expect((await t.rpc(a.key1, batch)).status).toBe(200);
    sentA.push(
      { key: k1, network: devnet, method: 'eth_chainId', status: '2xx', requests: 1, cu: 1 },
      { key: k1, network: devnet, method: 'eth_blockNumber', status: '2xx', requests: 1, cu: 1 },
      { key: k1, network: devnet, method: 'eth_getBalance', status: '2xx', requests: 1, cu: 5 },
    );
    // The Fastify route (an encoded path is not the fast path's): counted once, by the same logic.
    expect((await t.rpc(a.key1, call('eth_chainId'), '/v1/rpc/ethereum/%64evnet')).status).toBe(200);
    sentA.push({ key: k1, network: devnet, method: 'eth_chainId', status: '2xx', requests: 1, cu: 1 });
    // Refusals of an authenticated key count, without compute units.
    expect((await t.rpc(a.key1, call('eth_chainId'), '/v1/rpc/ethereum/nope')).status).toBe(404);
    sentA.push({ key: k1, network: '', method: '(unparsed)', status: '4xx', requests: 1, cu: 0 });
    expect((await t.rpc(a.key1, '{not json')).status).toBe(400);
    sentA.push({ key: k1, network: devnet, method: '(unparsed)', status: '4xx', requests: 1, cu: 0 });
    expect((await t.rpc(a.key1, call('eth_chainId'), '/v1/rpc/ethereum/mainnet')).status).toBe(403);
    sentA.push({ key: k1, network: 'ethereum/mainnet', method: '(unparsed)', status: '4xx', requests: 1, cu: 0 });
    // REST routes, by their pattern; the network from the chain parameter as the route resolves it.
    expect((await rest(t, a.key1, '/v1/gas/ethereum/prices')).status).toBe(200);
    sentA.push({ key: k1, network: devnet, method: 'GET /v1/gas/:chain/prices', status: '2xx', requests: 1, cu: 5 });
    expect((await rest(t, a.key1, '/v1/webhooks/wh_missing')).status).toBe(404);
    sentA.push({ key: k1, network: '', method: 'GET /v1/webhooks/:id', status: '4xx', requests: 1, cu: 5 });
    // The second key, on the second process.
    for (let i = 0; i < 2; i++) expect((await second.rpc(a.key2, call('eth_chainId'))).status).toBe(200);
    sentA.push({ key: a.key2Id, network: devnet, method: 'eth_chainId', status: '2xx', requests: 2, cu: 2 });
    // And key 1 on the second process: added to the same rows.
    expect((await second.rpc(a.key1, call('eth_blockNumber'))).status).toBe(200);
    sentA.push({ key: k1, network: devnet, method: 'eth_blockNumber', status: '2xx', requests: 1, cu: 1 });
    // Not an account's usage: a wrong key.
    expect((await t.rpc('svc_test_not-a-real-key-000000000000000000', call('eth_chainId'))).status).toBe(401);

    // Account B: a burst against 1 rps; the statuses the client saw are what must be counted.
    const burst = await Promise.all([
      ...Array.from({ length: 4 }, () => t.rpc(b.key, call('eth_blockNumber'))),
      t.rpc(b.key, [call('eth_chainId', [], 1), call('eth_getBalance', [holder, 'latest'], 2)]),
      rest(t, b.key, '/v1/gas/ethereum/prices'),
    ]);
    const statuses = burst.map((response) => response.status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(4);
    expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
    const classOf = (status: number) => (status === 429 ? '429' : '2xx');
    const charged = (status: number, cu: number) => (status === 429 ? 0 : cu);
    for (const status of statuses.slice(0, 4)) {
      sentB.push({
        key: b.keyId,
        network: devnet,
        method: 'eth_blockNumber',
        status: classOf(status),
        requests: 1,
        cu: charged(status, 1),
      });
    }
    sentB.push(
      {
        key: b.keyId,
        network: devnet,
        method: 'eth_chainId',
        status: classOf(statuses[4]!),
        requests: 1,
        cu: charged(statuses[4]!, 1),
      },
      {
        key: b.keyId,
        network: devnet,
        method: 'eth_getBalance',
        status: classOf(statuses[4]!),
        requests: 1,
        cu: charged(statuses[4]!, 5),
      },
      {
        key: b.keyId,
        network: devnet,
        method: 'GET /v1/gas/:chain/prices',
        status: classOf(statuses[5]!),
        requests: 1,
        cu: charged(statuses[5]!, 5),
      },
    );

    // REST requests are counted once answered (onResponse); then both processes write.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await Promise.all([t.service.usage!.flushNow(), second.service.usage!.flushNow()]);
    // B's budget refills before B reads its usage.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await t?.stop();
  });

  // First read after the flush: nothing of the reader can be in the table yet, so the totals are exact.
  it('counts every request by status class, with the compute units charged', async () => {
    const { status, body } = await usage(a.reader, '?group_by=status');
    expect(status).toBe(200);
    expect(observedBy(body)).toEqual(expectedBy(sentA, 'status'));
    const expectedTotals = Object.values(expectedBy(sentA, 'status')).reduce(
      (sum, row) => ({
        requests: sum.requests + row.requests,
        compute_units: sum.compute_units + row.compute_units,
        rate_limited: sum.rate_limited + row.rate_limited,
      }),
      { requests: 0, compute_units: 0, rate_limited: 0 },
    );
    expect(body.totals).toEqual(expectedTotals);
    expect(body.totals).toEqual({ requests: 15, compute_units: 24, rate_limited: 0 });
    expect(body.limits).toEqual({ rps: null, rpd: null, cups: null });
    // The defaults: the last 24 h by hour, a point for every hour (from rounded down to its hour).
    expect(body.granularity).toBe('hour');
    expect(body.group_by).toBe('status');
    expect(Date.parse(body.to) - Date.parse(body.from)).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(Date.parse(body.from) % 3_600_000).toBe(0);
    for (const series of body.series)
      expect(series.points.length).toBe(Math.ceil((Date.parse(body.to) - Date.parse(body.from)) / 3_600_000));
  });

  it('counts rate-limited requests as 429 with their methods, charging nothing for them', async () => {
    const { status, body } = await usage(b.key, '?group_by=method&granularity=minute');
    expect(status).toBe(200);
    expect(observedBy(body)).toEqual(expectedBy(sentB, 'method'));
    expect(body.totals.rate_limited).toBe(sentB.filter((row) => row.status === '429').length);
    expect(body.limits).toEqual({ rps: 1, rpd: 100_000, cups: 200 });
    expect(body.series[0].points.length).toBe(Math.ceil((Date.parse(body.to) - Date.parse(body.from)) / 60_000));
  });

  it('groups by method, key and network; both processes add up', async () => {
    const byMethod = await usage(a.reader, '?group_by=method');
    expect(observedBy(byMethod.body, (group) => group === usageMethod)).toEqual(expectedBy(sentA, 'method'));
    // 3 single calls and 1 in a batch on the first process, 1 on the second.
    expect(observedBy(byMethod.body).eth_blockNumber).toEqual({ requests: 5, compute_units: 5, rate_limited: 0 });

    const byKey = await usage(a.reader, '?group_by=key');
    expect(observedBy(byKey.body, (group) => group === a.readerId)).toEqual(expectedBy(sentA, 'key'));
    expect(Object.keys(observedBy(byKey.body))).not.toContain(b.keyId);

    const byNetwork = await usage(a.key2, '?group_by=network');
    const networks = observedBy(byNetwork.body);
    // The reader's own reads have no network.
    const expected = expectedBy(sentA, 'network');
    expect(networks['ethereum/devnet']).toEqual(expected['ethereum/devnet']);
    expect(networks['ethereum/mainnet']).toEqual(expected['ethereum/mainnet']);
    expect(Object.keys(networks).sort()).toEqual(['', 'ethereum/devnet', 'ethereum/mainnet']);
  });

  it('takes a range: usage before it is not in it', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const later = new Date(Date.now() + 7_200_000).toISOString();
    const { status, body } = await usage(a.reader, `?from=${future}&to=${later}&granularity=minute&group_by=method`);
    expect(status).toBe(200);
    expect(body.series).toEqual([]);
    expect(body.totals).toEqual({ requests: 0, compute_units: 0, rate_limited: 0 });
  });

  it('answers 400 naming the parameter', async () => {
    const cases: [string, string][] = [
      ['?granularity=week', 'granularity'],
      ['?group_by=color', 'group_by'],
      ['?from=yesterday', 'from'],
      ['?to=2026-13-45', 'to'],
      ['?from=2026-11-25T10:00:00Z&to=2026-11-25T09:00:00Z', 'from'],
      ['?from=2026-01-01T00:00:00Z&to=2026-11-25T00:00:00Z&granularity=hour', 'granularity'],
      ['?colour=red', 'colour'],
    ];
    for (const [query, param] of cases) {
      const { status, body } = await usage(a.reader, query);
      expect(status, query).toBe(400);
      expect(body.error.code, query).toBe('invalid_request');
      expect(body.error.message, query).toContain(`'${param}'`);
    }
  });

  it('needs a key (401), and a key sees only its own account', async () => {
    const response = await fetch(`${t.url}/v1/usage`);
    expect(response.status).toBe(401);
    const other = await t.createKey();
    const { body } = await usage(other.key);
    expect(body.series).toEqual([]);
  });

  it('writes the rows of a minute once per process flush, as the contract says', async () => {
    const rows = await t.database.db
      .selectFrom('usage_minutes')
      .selectAll()
      .where('account_id', '=', a.accountId)
      .where('key_id', '=', a.key1Id)
      .where('method', '=', 'eth_blockNumber')
      .execute();
    expect(rows.reduce((sum, row) => sum + Number(row.requests), 0)).toBe(5);
    expect(rows.every((row) => row.network === 'ethereum/devnet' && row.status_class === '2xx')).toBe(true);
    expect(rows.every((row) => new Date(row.minute).getUTCSeconds() === 0)).toBe(true);
    const lastUsed = await createUsageStore(t.database.db).lastUsed(a.accountId);
    // The reader's own reads are in only once a timed flush wrote them.
    expect([...lastUsed.keys()]).toEqual(expect.arrayContaining([a.key1Id, a.key2Id]));
    expect(lastUsed.has(b.keyId)).toBe(false);
    expect(Date.now() - lastUsed.get(a.key1Id)!.getTime()).toBeLessThan(120_000);
  });

  it('writes what a process counted when it stops, before its database closes', async () => {
    const third = await startTestService({ sharing: t });
    const { key, accountId } = await third.createKey();
    expect((await third.rpc(key, call('eth_chainId'))).status).toBe(200);
    await third.stop();
    const rows = await t.database.db.selectFrom('usage_minutes').selectAll().where('account_id', '=', accountId).execute();
    expect(rows.map((row) => [row.method, row.status_class, Number(row.requests), Number(row.compute_units)])).toEqual([
      ['eth_chainId', '2xx', 1, 1],
    ]);
  });
});
