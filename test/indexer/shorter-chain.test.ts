import { createPublicClient, createWalletClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { jsonRpc } from '../support/json-rpc.ts';
import { devAccount } from './support.ts';
import { type PoolIndexer, startPoolIndexer } from './twin-indexer.ts';

/**
 * A chain that got shorter (a devnet reverted to a snapshot, and moving on slowly): the indexer's newest
 * blocks exist nowhere, which alone proves nothing. Once the pool's served tip follows the node down
 * (every upstream below it for 30 s), the block at the new head is compared, and a different one there
 * undoes it and every block above it.
 */
describe('indexing a chain that got shorter', () => {
  let anvil: Devnet;
  let t: PoolIndexer;

  beforeAll(async () => {
    anvil = await startTestAnvil();
    t = await startPoolIndexer([{ name: 'node', url: anvil.url }], 'by block');
    t.indexer.start();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await anvil?.stop();
  });

  it('undoes the blocks above the new head once the served tip follows it down', async () => {
    const wallet = createWalletClient({ chain: foundry, transport: http(anvil.url), account: devAccount });
    const reader = createPublicClient({ chain: foundry, transport: http(anvil.url) });
    // Each transfer mined before the next step reads the head: anvil may answer the send before it mines.
    const send = async (to: `0x${string}`, value: bigint) => {
      const hash = await wallet.sendTransaction({ to, value });
      await reader.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 });
    };
    for (let i = 0; i < 3; i++) await send('0x00000000000000000000000000000000000b10c5', BigInt(i + 1));
    const snapshot = await jsonRpc(anvil.url, 'evm_snapshot');
    const fork = Number(await jsonRpc(anvil.url, 'eth_blockNumber'));
    for (let i = 0; i < 5; i++) await send('0x00000000000000000000000000000000000b10c5', BigInt(100 + i));
    const dropped = (await jsonRpc(anvil.url, 'eth_getBlockByNumber', ['latest', false])) as { hash: string };
    await t.indexer.waitFor({ number: fork + 5, hash: dropped.hash }, 15_000);

    await jsonRpc(anvil.url, 'evm_revert', [snapshot]);
    await send('0x000000000000000000000000000000000000f00d', 7n);
    const head = (await jsonRpc(anvil.url, 'eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
    expect(Number(head.number)).toBe(fork + 1);
    // Nothing is undone while the served tip stays above the node: its blocks there are unknown, not different.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await t.metric('blockyard_indexer_reorgs_total')).toBe(0);
    await t.indexer.waitFor({ number: fork + 1, hash: head.hash }, 45_000);

    expect(await t.metric('blockyard_indexer_reorgs_total')).toBe(1);
    expect(await t.metric('blockyard_indexer_blocks_rolled_back_total')).toBe(5);
    const removed = await t.database.db.selectFrom('chain_events').select(['block_number']).where('removed', '=', true).execute();
    expect(new Set(removed.map((event) => Number(event.block_number)))).toEqual(
      new Set([fork + 1, fork + 2, fork + 3, fork + 4, fork + 5]),
    );
  }, 90_000);
});
