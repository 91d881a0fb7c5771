import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { connectRaw } from '../ws/support/ws-client.ts';

const address = '0x00000000000000000000000000000000000000aa';
const statementTimeoutMs = 1_000;

/**
 * A tenant cannot hold more database work than its cap (issue 35 item 1): with the transfers table
 * locked, a data query waits in the database holding its account's only slot; the account's next
 * data query (REST, JSON-RPC, a batch) is refused at once with 429 naming the cap, its other calls
 * still pass, another account is not capped by it, and a statement waiting longer than the sessions'
 * statement_timeout is cancelled with a 503 naming the limit. The lock gone, the slot is free again.
 */
describe('the per-account cap on running data queries and the sessions statement_timeout', () => {
  let t: IndexedChain;
  let first: { key: string; accountId: string };
  let second: { key: string };
  let locker: pg.Client;
  /** Another session: pg_stat_activity is read once per transaction, so the locker's own would never change. */
  let watcher: pg.Client;
  beforeAll(async () => {
    t = await startIndexedChain({
      settings: { limits: { data_queries_per_account: 1, statement_timeout_ms: statementTimeoutMs } },
    });
    await t.anvilRpc('anvil_mine', ['0x2']);
    await t.synced();
    first = await t.service.createKey();
    second = await t.service.createKey();
    locker = new pg.Client({ connectionString: t.service.database.url });
    watcher = new pg.Client({ connectionString: t.service.database.url });
    await Promise.all([locker.connect(), watcher.connect()]);
  });
  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    await watcher?.end().catch(() => undefined);
    await t?.service.stop();
  });

  const transfers = (key: string) =>
    t.service.rpc(key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'alchemy_getAssetTransfers',
      params: [{ fromAddress: address, category: ['erc20'] }],
    });
  const rest = (key: string) =>
    fetch(`${t.service.url}/v1/transfers/ethereum/${address}?network=devnet`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });

  /** Until a statement of the service waits on the lock (the first query holds its slot in the database). */
  async function waitingOnLock(): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const { rows } = await watcher.query(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%token_transfers%'",
      );
      if (rows[0].n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no query waited on the lock within 5 s');
  }

  it('refuses the account a second data query at once, lets its other calls and other accounts through, and times the wait out', async () => {
    await locker.query('begin');
    await locker.query('lock table token_transfers in access exclusive mode');
    const started = Date.now();
    const held = transfers(first.key);
    await waitingOnLock();

    const refusedRest = await rest(first.key);
    expect(refusedRest.status).toBe(429);
    expect(((await refusedRest.json()) as { error: { message: string } }).error.message).toMatch(
      /already has 1 data queries running \(limits\.data_queries_per_account/,
    );
    const refusedBatch = await t.service.rpc(first.key, [
      { jsonrpc: '2.0', id: 1, method: 'alchemy_getAssetTransfers', params: [{ toAddress: address, category: ['erc20'] }] },
      { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
    ]);
    expect(refusedBatch.status).toBe(429);
    // On a WebSocket the message's calls get -32005 naming the cap, and the socket stays open.
    const socket = await connectRaw(`${t.service.url.replace('http:', 'ws:')}/v1/ws/ethereum/devnet?apiKey=${first.key}`);
    const refusedOverSocket = await socket.call('alchemy_getAssetTransfers', [{ toAddress: address, category: ['erc20'] }]);
    expect(refusedOverSocket.error).toMatchObject({ code: -32005, data: { limit: 'data_queries_per_account' } });
    expect((await socket.call('eth_blockNumber')).result).toMatch(/^0x/);
    socket.close();
    const plain = await t.service.rpc(first.key, { jsonrpc: '2.0', id: 3, method: 'eth_blockNumber', params: [] });
    expect(plain.status).toBe(200);
    expect(((await plain.json()) as { result?: string }).result).toMatch(/^0x/);

    // Another account is not held by the first one's cap: its query runs, and waits on the lock too.
    const other = rest(second.key);
    const timedOut = await held;
    expect(timedOut.status).toBe(200);
    const answer = (await timedOut.json()) as { error?: { code: number; message: string } };
    expect(answer.error?.code).toBe(-32603);
    expect(answer.error?.message).toMatch(/ran longer than the database allows \(limits\.statement_timeout_ms\)/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(statementTimeoutMs);
    const otherAnswer = await other;
    expect(otherAnswer.status).toBe(503);
    expect(((await otherAnswer.json()) as { error: { message: string } }).error.message).toMatch(/statement_timeout_ms/);
    await locker.query('rollback');

    const after = await transfers(first.key);
    expect(((await after.json()) as { result?: { transfers: unknown[] } }).result?.transfers).toEqual([]);
    expect((await rest(first.key)).status).toBe(200);
  });
});
