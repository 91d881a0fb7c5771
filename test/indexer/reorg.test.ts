import { sql } from 'kysely';
import { type Hex, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/events/chain-event.ts';
import { readChainEvents } from '../../src/events/store.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { type IndexedChain, startIndexedChain } from './support.ts';

const network = 'ethereum/devnet';
const receiver = '0x000000000000000000000000000000000000beef';
const other = '0x000000000000000000000000000000000000f00d';

/** Runtime code that forwards msg.value to `to` with a CALL: a contract that makes internal transfers. */
function forwarderInitCode(to: string): Hex {
  // PUSH1 0 four times (return and argument sizes and offsets), CALLVALUE, PUSH20 to, GAS, CALL, STOP.
  const runtime = `600060006000600034${'73'}${to.slice(2)}5af100`;
  const length = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${length}600c60003960${length}6000f3${runtime}`;
}

describe('indexer on a real anvil', () => {
  let chain: IndexedChain;
  const received: ChainEvent[] = [];

  beforeAll(async () => {
    chain = await startIndexedChain();
    chain.service.service.events.subscribe((events) => received.push(...events));
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  const db = () => chain.service.database.db;
  // viem caches getBlockNumber for a few seconds: ask anvil.
  const headNumber = async () => Number(BigInt((await chain.anvilRpc('eth_blockNumber')) as string));
  const canonicalHash = async (number: number) =>
    ((await chain.anvilRpc('eth_getBlockByNumber', [`0x${number.toString(16)}`, false])) as { hash: string }).hash;

  it('indexes blocks, transactions, native and internal transfers, with one event per fact', async () => {
    const hash = await chain.wallet.sendTransaction({ to: receiver, value: parseEther('1') });
    const deploy = await chain.wallet.deployContract({ abi: [], bytecode: forwarderInitCode(other) });
    const deployed = await chain.publicClient.waitForTransactionReceipt({ hash: deploy });
    const forward = await chain.wallet.sendTransaction({ to: deployed.contractAddress!, value: 123n });
    await chain.publicClient.waitForTransactionReceipt({ hash: forward });
    await chain.synced();

    const head = await headNumber();
    const blocks = await db()
      .selectFrom('index_blocks')
      .select(['number', 'hash'])
      .where('network', '=', network)
      .orderBy('number')
      .execute();
    expect(blocks.map((b) => Number(b.number))).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
    expect(blocks.at(-1)?.hash).toBe(await canonicalHash(head));

    const natives = await db()
      .selectFrom('native_transfers')
      .selectAll()
      .where('network', '=', network)
      .orderBy('block_number')
      .execute();
    expect(natives.map((t) => [t.tx_hash, t.to_address, t.value])).toEqual([
      [hash, receiver, parseEther('1').toString()],
      [forward, deployed.contractAddress!.toLowerCase(), '123'],
    ]);
    const internals = await db().selectFrom('internal_transfers').selectAll().where('network', '=', network).execute();
    expect(internals.map((t) => [t.tx_hash, t.from_address, t.to_address, t.value, t.trace_path])).toEqual([
      [forward, deployed.contractAddress!.toLowerCase(), other, '123', '0'],
    ]);
    const tx = await db().selectFrom('index_transactions').selectAll().where('hash', '=', deploy).executeTakeFirstOrThrow();
    expect(tx.contract_created).toBe(deployed.contractAddress!.toLowerCase());

    const types = received.filter((e) => !e.removed).map((e) => e.type);
    expect(types.filter((t) => t === 'block')).toHaveLength(head + 1);
    expect(types.filter((t) => t === 'transaction')).toHaveLength(3);
    expect(types.filter((t) => t === 'native_transfer')).toHaveLength(2);
    expect(types.filter((t) => t === 'internal_transfer')).toHaveLength(1);
    const seqs = received.map((e) => BigInt(e.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => (a < b ? -1 : 1)));
    const stored = await db()
      .selectFrom('chain_events')
      .select(sql<string>`count(*)`.as('n'))
      .where('network', '=', network)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(received.length);
    // A consumer resumes from the last seq it saw and gets exactly what followed, in order.
    const resumed = await readChainEvents(db(), { afterSeq: received[4]!.seq, limit: 10_000 });
    expect(resumed.map((e) => e.seq)).toEqual(received.slice(5).map((e) => e.seq));
    expect(resumed[0]).toEqual(received[5]);
  });

  it.each([3, 64])(
    'undoes a %i-block reorg and indexes the new branch',
    async (depth) => {
      const snapshot = await chain.anvilRpc('evm_snapshot');
      const fork = await headNumber();
      const dropped: Hex[] = [];
      for (let i = 0; i < depth; i++) dropped.push(await chain.wallet.sendTransaction({ to: receiver, value: BigInt(1000 + i) }));
      await chain.synced();
      expect(await db().selectFrom('native_transfers').select('tx_hash').where('tx_hash', 'in', dropped).execute()).toHaveLength(
        depth,
      );
      const seenBefore = received.length;

      await chain.anvilRpc('evm_revert', [snapshot]);
      // The new branch is longer than the old one and holds other transactions.
      const kept: Hex[] = [];
      for (let i = 0; i < depth + 1; i++) kept.push(await chain.wallet.sendTransaction({ to: other, value: BigInt(5000 + i) }));
      await chain.synced();

      const droppedRows = await db().selectFrom('native_transfers').select('tx_hash').where('tx_hash', 'in', dropped).execute();
      expect(droppedRows).toEqual([]);
      const keptRows = await db().selectFrom('native_transfers').select('tx_hash').where('tx_hash', 'in', kept).execute();
      expect(keptRows).toHaveLength(depth + 1);
      const head = await headNumber();
      expect(head).toBe(fork + depth + 1);
      for (const number of [fork, fork + 1, head]) {
        const row = await db()
          .selectFrom('index_blocks')
          .select('hash')
          .where('network', '=', network)
          .where('number', '=', String(number))
          .executeTakeFirstOrThrow();
        expect(row.hash).toBe(await canonicalHash(number));
      }

      // Every event of a dropped block has its removed twin, in the table and pushed to listeners.
      const orphans = await sql<{ n: string }>`
      select count(*) as n from chain_events e
      where e.network = ${network} and e.removed = false
        and not exists (select 1 from index_blocks b where b.network = e.network and b.number = e.block_number and b.hash = e.block_hash)
        and not exists (select 1 from chain_events r where r.removes_seq = e.seq)`.execute(db());
      expect(Number(orphans.rows[0]?.n)).toBe(0);
      const removed = received.slice(seenBefore).filter((e) => e.removed);
      expect(
        removed
          .filter((e) => e.type === 'native_transfer')
          .map((e) => e.data.transaction_hash)
          .sort(),
      ).toEqual([...dropped].sort());
      expect(removed.filter((e) => e.type === 'block')).toHaveLength(depth);
      for (const event of removed) expect(event.removesSeq).not.toBeNull();
    },
    120_000,
  );

  it('notices a block replaced at the same height', async () => {
    const snapshot = await chain.anvilRpc('evm_snapshot');
    const first = await chain.wallet.sendTransaction({ to: receiver, value: 1n });
    await chain.synced();
    await chain.anvilRpc('evm_revert', [snapshot]);
    const second = await chain.wallet.sendTransaction({ to: other, value: 2n });
    await chain.synced();
    const rows = await db().selectFrom('native_transfers').select('tx_hash').where('tx_hash', 'in', [first, second]).execute();
    expect(rows.map((r) => r.tx_hash)).toEqual([second]);
  }, 60_000);

  it('reports its progress through the admin API and `blockyard index status`', async () => {
    await chain.synced();
    const head = await headNumber();
    const deadline = Date.now() + 10_000;
    let status = await chain.service.admin('GET', '/admin/index/status');
    while (status.body.networks?.[0]?.indexed_block !== head && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = await chain.service.admin('GET', '/admin/index/status');
    }
    expect(status.status).toBe(200);
    expect(status.body.networks).toEqual([
      expect.objectContaining({ network, indexed_block: head, head_block: head, blocks_behind: 0, final_block: head - 2 }),
    ]);

    const cli = await runCli(['index', 'status', '--url', chain.service.url, '--admin-token', chain.service.adminToken], {
      env: cliEnv(),
      cwd: chain.service.dataDir,
      timeoutMs: 45_000,
    });
    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).networks[0]).toMatchObject({
      network,
      blocks_behind: expect.any(Number),
      blocks_per_second: expect.any(Number),
    });
  }, 60_000);
});
