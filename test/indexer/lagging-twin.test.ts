import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonRpc } from '../support/json-rpc.ts';
import { network, type Routing, startTwinIndexer, type TwinIndexer } from './twin-indexer.ts';

interface Block {
  number: string;
  hash: string;
}

const blockAt = (url: string, number: number) =>
  jsonRpc(url, 'eth_getBlockByNumber', [`0x${number.toString(16)}`, false]) as Promise<Block | null>;

/**
 * Upstream B genuinely 1-2 blocks behind A (twin anvils: B lacks the blocks), B listed first and faster.
 * `by block`: the indexer's reads name their blocks and the pool sends them where the blocks are.
 * `unrouted`: the same reads stripped of their blocks, so they go to B, the faster; only the judged
 * answers (a `null` is "missing", asked of A) and the rule that an unknown hash is no reorg keep the
 * index right. Either way: no reorg, no rollback, and the index is A's chain exactly.
 */
describe.each<Routing>(['by block', 'unrouted'])('indexing through a pool where B lags A (reads %s)', (routing) => {
  let t: TwinIndexer;

  beforeAll(async () => {
    t = await startTwinIndexer(routing);
    for (let i = 0; i < 3; i++) {
      await t.twins.sendRawTransaction(await t.transfer(BigInt(100 + i)));
      await t.twins.mine();
    }
    t.indexer.start();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
  });

  /** Waits until the index holds A's head (by hash). */
  const indexedToA = async () => {
    const height = t.twins.height('a');
    const head = (await blockAt(t.twins.a.url, height))!;
    await t.indexer.waitFor({ number: height, hash: head.hash }, 15_000);
  };

  it('never undoes a block while B is 1-2 blocks behind, and indexes A exactly', async () => {
    for (let episode = 0; episode < 8; episode++) {
      const behind = 1 + (episode % 2);
      for (let i = 0; i < behind; i++) {
        await t.twins.sendRawTransaction(await t.transfer(BigInt(1000 + episode * 10 + i)));
        await t.twins.mineOnly('a');
      }
      expect(t.twins.height('a') - t.twins.height('b')).toBe(behind);
      await indexedToA();
      // B stays behind a while (its head is polled every 250 ms): the indexer keeps reading through it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await t.twins.catchUp('b');
      await t.twins.mine();
      await indexedToA();
    }

    expect(await t.metric('blockyard_indexer_reorgs_total')).toBe(0);
    expect(await t.metric('blockyard_indexer_blocks_rolled_back_total')).toBe(0);
    expect(t.logs.reorgs).toEqual([]);
    const db = t.database.db;
    const removed = await sql<{ n: string }>`select count(*) as n from chain_events where removed`.execute(db);
    expect(Number(removed.rows[0]!.n)).toBe(0);
    const stored = await db
      .selectFrom('index_blocks')
      .select(['number', 'hash'])
      .where('network', '=', network)
      .orderBy('number')
      .execute();
    const height = t.twins.height('a');
    const onA = await Promise.all(Array.from({ length: height + 1 }, (_, n) => blockAt(t.twins.a.url, n)));
    expect(stored.map((row) => [Number(row.number), row.hash])).toEqual(onA.map((block, n) => [n, block!.hash]));

    // B served the indexer's reads; unrouted, it was asked for blocks it lacked and its nulls were not used.
    expect(t.simB.calls('eth_getBlockByNumber')).toBeGreaterThan(0);
    const missingFromB = await t.metric('blockyard_upstream_missing_answers_total', { upstream: 'b' });
    if (routing === 'unrouted') expect(missingFromB).toBeGreaterThan(0);
  }, 120_000);

  it.runIf(routing === 'by block')(
    'undoes a block replaced on A while B lags, and only that block',
    async () => {
      await t.twins.catchUp('b');
      await indexedToA();
      const fork = t.twins.height('a');
      const snapshot = await jsonRpc(t.twins.a.url, 'evm_snapshot');
      await t.twins.sendRawTransaction(await t.transfer(7_000n));
      await t.twins.mineOnly('a');
      const dropped = (await blockAt(t.twins.a.url, fork + 1))!;
      await indexedToA();
      const eventsBefore = await eventCount(t);

      // A reorgs: block fork + 1 is replaced by an empty one with another timestamp, and A moves on. B
      // never gets either branch: it stays at `fork`, answering null above it.
      await jsonRpc(t.twins.a.url, 'evm_revert', [snapshot]);
      const { timestamp } = (await jsonRpc(t.twins.a.url, 'eth_getBlockByNumber', ['latest', false])) as { timestamp: string };
      await jsonRpc(t.twins.a.url, 'evm_mine', [Number(timestamp) + 7]);
      await jsonRpc(t.twins.a.url, 'evm_mine', [Number(timestamp) + 9]);
      const head = (await blockAt(t.twins.a.url, fork + 2))!;
      expect((await blockAt(t.twins.a.url, fork + 1))!.hash).not.toBe(dropped.hash);
      await t.indexer.waitFor({ number: fork + 2, hash: head.hash }, 15_000);

      expect(await t.metric('blockyard_indexer_reorgs_total')).toBe(1);
      expect(await t.metric('blockyard_indexer_blocks_rolled_back_total')).toBe(1);
      const removed = await t.database.db
        .selectFrom('chain_events')
        .select(['block_number', 'block_hash', 'type'])
        .where('removed', '=', true)
        .execute();
      // The dropped block's block, transaction and transfer events, nothing of an unchanged block.
      expect(removed.map((event) => [Number(event.block_number), event.block_hash]).sort()).toEqual(
        Array.from({ length: removed.length }, () => [fork + 1, dropped.hash]),
      );
      expect(removed.map((event) => event.type).sort()).toEqual(['block', 'native_transfer', 'transaction']);
      expect(await eventCount(t)).toBeGreaterThan(eventsBefore);
    },
    60_000,
  );
});

async function eventCount(t: TwinIndexer): Promise<number> {
  const counted = await sql<{ n: string }>`select count(*) as n from chain_events`.execute(t.database.db);
  return Number(counted.rows[0]!.n);
}
