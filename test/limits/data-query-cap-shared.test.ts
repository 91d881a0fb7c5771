import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRedis, startRedis } from '../support/redis.ts';
import { redisServer, skipWithout } from '../support/requirements.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';

const address = '0x00000000000000000000000000000000000000aa';

/**
 * With a Redis, the cap on an account's running data queries is the account's across every node, not
 * each node's: a query waiting in the database on node a holds the account's only slot, so node b
 * refuses the account's next one with 429; another account runs beside it; the query done, its slot is
 * free on b too.
 */
describe('the per-account data-query cap, shared by two nodes on one Redis', () => {
  skipWithout(redisServer);
  let redis: RunningRedis | undefined;
  let a: TestService;
  let b: TestService;
  let locker: pg.Client;
  let watcher: pg.Client;
  beforeAll(async () => {
    if (redisServer.missing) return;
    redis = await startRedis();
    const settings = { limits: { data_queries_per_account: 1 } };
    // Indexed (the transfers routes need it) by node a; an automined devnet makes no blocks meanwhile, so
    // once the index has started nothing but the queries under test touches the locked table.
    const chainsFor = (url: string) => [devnetChain(url, { indexer: { enabled: true } })];
    a = await startTestService({ redisUrl: redis.url, settings, chainsFor });
    b = await startTestService({ redisUrl: redis.url, settings, chainsFor, roles: 'api', sharing: a });
    const { key } = await a.createKey();
    const deadline = Date.now() + 20_000;
    while ((await transfers(a, key)).status === 503) {
      if (Date.now() > deadline) throw new Error('the index did not start within 20 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    locker = new pg.Client({ connectionString: a.database.url });
    watcher = new pg.Client({ connectionString: a.database.url });
    await Promise.all([locker.connect(), watcher.connect()]);
  });
  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    await watcher?.end().catch(() => undefined);
    await b?.stop();
    await a?.stop();
    await redis?.stop();
  });

  const transfers = (service: TestService, key: string) =>
    fetch(`${service.url}/v1/transfers/ethereum/${address}?network=devnet`, {
      headers: { 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });

  /** alchemy_getAssetTransfers of ERC-20 transfers: a read of token_transfers alone. */
  const assetTransfers = (service: TestService, key: string) =>
    service.rpc(key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'alchemy_getAssetTransfers',
      params: [{ fromAddress: address, category: ['erc20'] }],
    });

  async function statementsWaitingOnLock(count: number): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const { rows } = await watcher.query(
        "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%token_transfers%'",
      );
      if (rows[0].n >= count) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`fewer than ${count} queries waited on the lock within 5 s`);
  }

  it("refuses on node b the account's second data query while its first runs on node a", async () => {
    const { key } = await a.createKey();
    const other = await a.createKey();
    await locker.query('begin');
    await locker.query('lock table token_transfers in access exclusive mode');
    let held: Promise<Response> | undefined;
    let beside: Promise<Response> | undefined;
    try {
      held = assetTransfers(a, key);
      await statementsWaitingOnLock(1);
      const refused = await transfers(b, key);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
        /already has 1 data queries running \(limits\.data_queries_per_account/,
      );
      beside = assetTransfers(b, other.key);
      await statementsWaitingOnLock(2);
    } finally {
      await locker.query('rollback');
    }
    expect((await held).status).toBe(200);
    expect((await beside!).status).toBe(200);
    // The slot went back to Redis with the answer: node b serves the account again.
    expect((await transfers(b, key)).status).toBe(200);
  });
});
