import { sql } from 'kysely';
import { createWalletClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { jsonRpc } from '../support/json-rpc.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';
import { devAccount } from './support.ts';
import { network, type PoolIndexer, startPoolIndexer } from './twin-indexer.ts';

type Lag = 'load balancer' | 'episodes';

/**
 * The only upstream lags in one of two ways: a load balancer over two unsynced nodes (the simulator's
 * `alternate`: one request in two goes to a node 2 blocks behind), or a node that falls 1-2 blocks
 * behind the head it reported, in episodes. No other upstream has the blocks it lacks, so a `null`
 * comes back to the indexer: the block is unknown, never a reorg, and the round asks again soon.
 */
describe.each<Lag>(['load balancer', 'episodes'])('indexing through one upstream that lags (%s)', (lag) => {
  let anvil: Devnet;
  let upstream: ProviderSim;
  let t: PoolIndexer;

  beforeAll(async () => {
    anvil = await startTestAnvil();
    upstream = await startProviderSim({
      upstream: anvil.url,
      behaviour: lag === 'load balancer' ? { alternate: { lagBlocks: 2 } } : {},
    });
    t = await startPoolIndexer([{ name: 'upstream', url: upstream.url }], 'by block');
    t.indexer.start();
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await upstream?.close();
    await anvil?.stop();
  });

  it('indexes the chain exactly, undoes nothing, and waits for the blocks rather than backing off', async () => {
    const wallet = createWalletClient({ chain: foundry, transport: http(anvil.url), account: devAccount });
    // A block every 250 ms: the indexer is caught up most of the time, checking its newest block's hash.
    for (let step = 0; step < 24; step++) {
      if (step % 2 === 0)
        await wallet.sendTransaction({ to: '0x00000000000000000000000000000000000b10c5', value: BigInt(step + 1) });
      else await jsonRpc(anvil.url, 'evm_mine');
      if (lag === 'episodes' && step % 4 === 1) upstream.set({ lagBlocks: step % 8 === 1 ? 2 : 1 });
      if (lag === 'episodes' && step % 4 === 3) upstream.set({ lagBlocks: 0 });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const head = (await jsonRpc(anvil.url, 'eth_getBlockByNumber', ['latest', false])) as { number: string; hash: string };
    const started = Date.now();
    await t.indexer.waitFor({ number: Number(head.number), hash: head.hash }, 15_000);
    // Blocks come within a few polls: the round that met a null asked again after one poll, not a backoff.
    expect(Date.now() - started).toBeLessThan(5_000);
    // Caught up for a while: the newest block's hash is asked again and again, of either node.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await t.metric('blockyard_indexer_reorgs_total')).toBe(0);
    expect(await t.metric('blockyard_indexer_blocks_rolled_back_total')).toBe(0);
    expect(t.logs.reorgs).toEqual([]);
    const removed = await sql<{ n: string }>`select count(*) as n from chain_events where removed`.execute(t.database.db);
    expect(Number(removed.rows[0]!.n)).toBe(0);
    const stored = await t.database.db
      .selectFrom('index_blocks')
      .select(['number', 'hash'])
      .where('network', '=', network)
      .orderBy('number')
      .execute();
    const height = Number(head.number);
    const chain = await Promise.all(
      Array.from(
        { length: height + 1 },
        (_, n) => jsonRpc(anvil.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false]) as Promise<{ hash: string }>,
      ),
    );
    expect(stored.map((row) => [Number(row.number), row.hash])).toEqual(chain.map((block, n) => [n, block.hash]));
    // The lagging node's nulls were met (and not used), and no round failed because of them.
    expect(await t.metric('blockyard_upstream_missing_answers_total')).toBeGreaterThan(0);
    expect(await t.metric('blockyard_indexer_errors_total')).toBe(0);
  }, 60_000);
});
