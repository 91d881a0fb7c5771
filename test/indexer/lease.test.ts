import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/events/chain-event.ts';
import { startTestService } from '../support/service.ts';
import { startIndexedChain } from './support.ts';

// The lease is a Postgres advisory lock held by one process's session.
describe('indexer lease on Postgres', () => {
  it('keeps one active indexer per network, pushes its events to the other process, and hands over when it stops', async () => {
    const first = await startIndexedChain();
    let second: Awaited<ReturnType<typeof startTestService>> | undefined;
    try {
      await first.synced();
      second = await startTestService({ sharing: first.service, chainsFor: () => first.chainsConfig });
      const standby = second.service.indexers[0]!;
      const seenBySecond: ChainEvent[] = [];
      second.service.events.subscribe((events) => seenBySecond.push(...events));
      const hash = await first.wallet.sendTransaction({ to: '0x000000000000000000000000000000000000beef', value: 1n });
      await first.synced();
      expect(standby.tip()).toBeUndefined();
      // The other process gets the events through LISTEN/NOTIFY and the table, in seq order.
      const deadline = Date.now() + 10_000;
      while (!seenBySecond.some((e) => e.data.transaction_hash === hash) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(seenBySecond.filter((e) => e.type === 'native_transfer').map((e) => e.data.transaction_hash)).toContain(hash);
      const seqs = seenBySecond.map((e) => BigInt(e.seq));
      expect(seqs).toEqual([...seqs].sort((a, b) => (a < b ? -1 : 1)));

      await first.service.service.stop('handover test');
      const handedOver = await first.wallet.sendTransaction({ to: '0x000000000000000000000000000000000000beef', value: 2n });
      await first.publicClient.waitForTransactionReceipt({ hash: handedOver, timeout: 10_000 });
      // The first process is stopped: only the standby, once it holds the lease, can index this block.
      await standby.waitFor(undefined, 20_000);
      expect(standby.isRunning()).toBe(true);
      expect(standby.tip()?.number).toBeGreaterThan(0);
      const stored = await first.service.database.db
        .selectFrom('index_transactions')
        .select('hash')
        .where('hash', '=', handedOver)
        .executeTakeFirst();
      expect(stored?.hash).toBe(handedOver);
    } finally {
      await second?.stop();
      await first.service.stop().catch(() => undefined);
    }
  }, 90_000);

  it('a lease whose database session ends stops being used, and is taken again', async () => {
    const chain = await startIndexedChain();
    const admin = new pg.Client({ connectionString: chain.service.database.url });
    await admin.connect();
    // The lease's lock only: writers of chain_events hold another advisory lock while they commit.
    const holder = async () =>
      (
        await admin.query<{ pid: number }>(
          `select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 1
           and database = (select oid from pg_database where datname = current_database())
           and ((classid::int8 << 32) | objid::int8) = hashtext($1)::int8`,
          [`blockyard-indexer:${chain.indexer.network}`],
        )
      ).rows[0]?.pid;
    try {
      await chain.synced();
      const first = await holder();
      expect(first).toBeDefined();
      // What a failover of the database server, or an operator, does to the session holding the lock.
      await admin.query('select pg_terminate_backend($1)', [first]);

      let second: number | undefined;
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        second = await holder();
        if (second !== undefined && second !== first) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      const hash = await chain.wallet.sendTransaction({ to: '0x000000000000000000000000000000000000beef', value: 3n });
      await chain.synced();
      const stored = await chain.service.database.db
        .selectFrom('index_transactions')
        .select('hash')
        .where('hash', '=', hash)
        .executeTakeFirst();
      expect(stored?.hash).toBe(hash);
      expect(chain.indexer.isRunning()).toBe(true);
    } finally {
      await admin.end();
      await chain.service.stop();
    }
  }, 60_000);
});
