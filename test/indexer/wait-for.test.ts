import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/events/chain-event.ts';
import { type IndexedChain, startIndexedChain } from './support.ts';

const network = 'ethereum/devnet';
const receiver = '0x000000000000000000000000000000000000beef';
const other = '0x000000000000000000000000000000000000f00d';

/**
 * `synced()` and `waitFor` are what every indexer test stands on: once they return, the rows of the block
 * asked for are readable and its events were delivered, and they fail instead of returning early.
 */
describe('waiting for the index', () => {
  let chain: IndexedChain;
  const received: ChainEvent[] = [];

  beforeAll(async () => {
    chain = await startIndexedChain();
    chain.service.service.events.subscribe((events) => received.push(...events));
  });
  afterAll(async () => {
    await chain?.service.stop();
  });

  const db = () => chain.service.database.db;
  const latest = async () => {
    const block = (await chain.anvilRpc('eth_getBlockByNumber', ['latest', false])) as { number: Hex; hash: string };
    return { number: Number(BigInt(block.number)), hash: block.hash };
  };
  const storedHash = async (number: number) =>
    (
      await db()
        .selectFrom('index_blocks')
        .select('hash')
        .where('network', '=', network)
        .where('number', '=', String(number))
        .executeTakeFirst()
    )?.hash;

  // anvil answers eth_sendRawTransaction before it has mined the block (automine mines in the background):
  // here the miner is held back until synced() has started, which automine does by chance under load.
  it('synced() waits for a transaction that anvil has not mined yet', async () => {
    await chain.anvilRpc('evm_setAutomine', [false]);
    try {
      const hash = await chain.wallet.sendTransaction({ to: receiver, value: 7n });
      const syncing = chain.synced();
      // One round trip first, so what synced() asked anvil before mining has been answered.
      await chain.anvilRpc('eth_chainId');
      await chain.anvilRpc('evm_mine');
      await syncing;
      const row = await db().selectFrom('index_transactions').select('hash').where('hash', '=', hash).executeTakeFirst();
      expect(row?.hash).toBe(hash);
    } finally {
      await chain.anvilRpc('evm_setAutomine', [true]);
    }
  });

  it('synced() right after a transaction is sent returns once its rows and events are there', async () => {
    for (let i = 0; i < 40; i++) {
      const hash = await chain.wallet.sendTransaction({ to: receiver, value: BigInt(i + 1) });
      await chain.synced();
      const row = await db().selectFrom('index_transactions').select('hash').where('hash', '=', hash).executeTakeFirst();
      expect(row?.hash, `transaction ${i}`).toBe(hash);
      const events = received.filter((e) => e.type === 'native_transfer' && e.data.transaction_hash === hash);
      expect(events, `events of transaction ${i}`).toHaveLength(1);
    }
  }, 60_000);

  it('after a block is replaced at the same height, synced() waits for the new block, not for its number', async () => {
    for (let i = 0; i < 10; i++) {
      const snapshot = await chain.anvilRpc('evm_snapshot');
      const dropped = await chain.wallet.sendTransaction({ to: receiver, value: BigInt(100 + i) });
      await chain.synced();
      await chain.anvilRpc('evm_revert', [snapshot]);
      const kept = await chain.wallet.sendTransaction({ to: other, value: BigInt(200 + i) });
      await chain.synced();
      const rows = await db().selectFrom('native_transfers').select('tx_hash').where('tx_hash', 'in', [dropped, kept]).execute();
      expect(
        rows.map((r) => r.tx_hash),
        `round ${i}`,
      ).toEqual([kept]);
      const head = await latest();
      expect(await storedHash(head.number), `round ${i}`).toBe(head.hash);
    }
  }, 60_000);

  it('waitFor() rejects when the indexer stops before the block is indexed', async () => {
    await chain.synced();
    const { number } = await latest();
    const waiting = chain.indexer.waitFor(number + 1_000, 20_000);
    const outcome = waiting.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await chain.indexer.stop();
    expect(await outcome).toMatch(/stopped before block \d+ was indexed/);
  }, 30_000);
});
