import { sql } from 'kysely';
import { type Abi, type Address, encodeFunctionData } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import type { Database } from '../../src/db/connect.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { sumOfSamples } from '../support/metric-sum.ts';
import { forwardTo, startRpcServer, type TestRpcServer } from '../support/rpc-server.ts';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * `blockyard index backfill` on a real network whose index started at the head: the job fills the
 * blocks below it in the background, survives a stop mid-way, and ends with exactly the rows an index
 * from block 0 of the same chain holds (transfers, holdings, NFT ownership), without chain events.
 */
const network = 'acme/mainnet';
/** anvil's accounts #5 and #6: unlocked, so eth_sendTransaction sends from them. */
const holderA: Address = '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc';
const holderB: Address = '0x976EA74026E726554dB657fA54763abd0C3a0aa9';
/** Tables whose rows a block writes, with their keys (the order rows are compared in). */
const derivedTables = {
  index_blocks: 'number',
  index_transactions: 'hash',
  token_transfers: 'block_number, log_index',
  nft_transfers: 'block_number, log_index, batch_index',
  native_transfers: 'tx_hash',
  internal_transfers: 'tx_hash, trace_path',
  token_holdings: 'holder, contract',
  nft_holder_collections: 'holder, contract',
  nft_airdrops: 'block_number, log_index, batch_index',
  nft_ownership: 'contract, token_id, owner',
} as const;

function chainEntry(url: string, indexer: Record<string, unknown>) {
  return {
    chain: 'acme',
    network: 'mainnet',
    chain_id: 31337,
    finality: 'depth',
    finality_depth: 2,
    block_time_s: 0.2,
    upstreams: [{ url }],
    indexer,
  };
}

describe('backfill of a real network', () => {
  let anvil: Devnet;
  let contracts: TestContracts;
  let proxy: TestRpcServer;
  let delayMs = 0;
  let database: TestDatabase;
  let reference: TestDatabase;
  let origin: number;
  let service: TestService | undefined;

  const send = async (from: Address, to: Address, abi: Abi, functionName: string, args: unknown[]) => {
    const data = encodeFunctionData({ abi, functionName, args });
    const hash = await contracts.wallet.request({
      method: 'eth_sendTransaction',
      params: [{ from, to, data, gas: '0x7a120' }],
    } as never);
    const receipt = await contracts.publicClient.waitForTransactionReceipt({ hash: hash as `0x${string}`, timeout: 10_000 });
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
  };
  const mine = (blocks: number) =>
    contracts.publicClient.request({ method: 'anvil_mine' as never, params: [`0x${blocks.toString(16)}`] as never });
  const startOn = async (indexer: Record<string, unknown>) => {
    const started = await startTestService({ sharing: { anvil, database }, chains: [chainEntry(proxy.url, indexer)] });
    await started.service.indexers[0]!.waitFor(undefined, 30_000);
    return started;
  };
  const job = async (id: string) =>
    database.db
      .selectFrom('index_backfills')
      .selectAll()
      .where('id', '=', id as never)
      .executeTakeFirstOrThrow();
  const waitUntil = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    [anvil, database, reference] = await Promise.all([startTestAnvil(), createTestDatabase(), createTestDatabase()]);
    contracts = await deployTestContracts(anvil.url);
    proxy = await startRpcServer(async (body) => {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return forwardTo(anvil.url)(body);
    });
    const { DemoToken, DemoNft, DemoItems } = contracts.artifacts;
    // History before the index starts: mints, a transfer, and empty stretches so the backfill takes several windows.
    await send(holderA, contracts.token, DemoToken.abi, 'mint', [holderA, 1_000_000n]);
    await mine(120);
    await send(holderA, contracts.token, DemoToken.abi, 'transfer', [holderB, 250_000n]);
    for (const id of [1n, 2n, 3n]) await send(holderA, contracts.nft, DemoNft.abi, 'mint', [holderA, id]);
    await send(holderA, contracts.nft, DemoNft.abi, 'mint', [holderB, 4n]); // an airdrop: holderB sent nothing
    await send(holderA, contracts.items, DemoItems.abi, 'mintBatch', [holderA, [1n, 2n], [10n, 20n]]);
    const native = await contracts.wallet.request({
      method: 'eth_sendTransaction',
      params: [{ from: holderA, to: holderB, value: '0xde0b6b3a7640000' }],
    } as never);
    await contracts.publicClient.waitForTransactionReceipt({ hash: native as `0x${string}`, timeout: 10_000 });
    await mine(180);
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await proxy?.close();
    await Promise.all([anvil?.stop(), database?.close(), reference?.close()]);
  });

  it('fills the blocks below the start, resumes after a stop, and ends as an index from block 0', async () => {
    service = await startOn({ enabled: true });
    origin = Number((await database.db.selectFrom('index_origins').select('first_block').executeTakeFirstOrThrow()).first_block);
    // After the start: tokens minted before it move, one is burned; the index saw only these.
    const { DemoToken, DemoNft, DemoItems } = contracts.artifacts;
    await send(holderA, contracts.nft, DemoNft.abi, 'transferFrom', [holderA, holderB, 1n]);
    await send(holderA, contracts.nft, DemoNft.abi, 'burn', [2n]);
    await send(holderA, contracts.items, DemoItems.abi, 'safeTransferFrom', [holderA, holderB, 1n, 4n, '0x']);
    await send(holderB, contracts.token, DemoToken.abi, 'transfer', [holderA, 50_000n]);
    await service.service.indexers[0]!.waitFor(undefined, 30_000);

    delayMs = 150;
    const created = await service.admin('POST', '/admin/index/backfills', { network, from: 0 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ from: 0, to: origin - 1, status: 'pending' });
    const id = created.body.id as string;
    await waitUntil('a first window committed', async () => Number((await job(id)).next_block) > 0);
    await service.stop();
    service = undefined;
    const stopped = await job(id);
    expect(stopped.status).toBe('running');
    expect(Number(stopped.next_block)).toBeLessThanOrEqual(origin - 1);

    delayMs = 0;
    service = await startOn({ enabled: true });
    await waitUntil('the backfill done', async () => (await job(id)).status === 'done');
    const chains = await service.admin('GET', '/admin/chains');
    const acme = (chains.body.networks as { chain: string; indexer: Record<string, unknown> }[]).find((n) => n.chain === 'acme');
    expect(acme?.indexer).toMatchObject({
      start_block: origin,
      backfill: { id, from: 0, to: origin - 1, next: origin, status: 'done', blocks_done: origin, blocks_total: origin },
    });
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(sumOfSamples(metrics, 'blockyard_indexer_backfill_blocks_total', { network })).toBeGreaterThan(0);

    const fromZero = await startTestService({
      sharing: { anvil, database: reference },
      chains: [chainEntry(anvil.url, { enabled: true, start_block: 0 })],
    });
    try {
      await fromZero.service.indexers[0]!.waitFor(undefined, 30_000);
      await service.service.indexers[0]!.waitFor(undefined, 30_000);
      await expectSameRows(database.db, reference.db);
    } finally {
      await fromZero.stop();
    }
    // History is not news: no chain event (so no webhook, no subscription message) for a backfilled block.
    const { rows } = await sql<{ count: string }>`select count(*) from chain_events where block_number < ${origin}`.execute(
      database.db,
    );
    expect(Number(rows[0]!.count)).toBe(0);
  }, 180_000);

  it('running the same backfill again changes nothing', async () => {
    const again = await service!.admin('POST', '/admin/index/backfills', { network, from: 0, to: origin - 1 });
    expect(again.status).toBe(201);
    await waitUntil('the second backfill done', async () => (await job(again.body.id)).status === 'done');
    await expectSameRows(database.db, reference.db);
  }, 60_000);

  it('refuses a range the index already covers, naming the field', async () => {
    const above = await service!.admin('POST', '/admin/index/backfills', { network, from: 0, to: origin });
    expect(above.status).toBe(400);
    expect(above.body.error.message).toContain(`'to'`);
    const unknown = await service!.admin('POST', '/admin/index/backfills', { network: 'acme/nowhere', from: 0 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain(`'network'`);
  }, 30_000);
});

async function expectSameRows(backfilled: Database, fromZero: Database) {
  for (const [table, key] of Object.entries(derivedTables)) {
    const read = async (db: Database) =>
      (await sql.raw<Record<string, unknown>>(`select * from ${table} where network = '${network}' order by ${key}`).execute(db))
        .rows;
    const [mine, theirs] = await Promise.all([read(backfilled), read(fromZero)]);
    // No call in this workload moves ether inside a contract: internal_transfers stays empty on both.
    if (table !== 'internal_transfers') expect(mine.length, table).toBeGreaterThan(0);
    expect(mine, table).toEqual(theirs);
  }
}
