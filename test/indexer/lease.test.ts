import { describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../src/events/chain-event.ts';
import { testDatabaseKind } from '../support/database.ts';
import { startTestService } from '../support/service.ts';
import { startIndexedChain } from './support.ts';

// The lease is a Postgres advisory lock; PGlite is a single process and runs without one.
describe.runIf(testDatabaseKind() === 'postgres')('indexer lease on Postgres', () => {
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
      await first.wallet.sendTransaction({ to: '0x000000000000000000000000000000000000beef', value: 2n });
      await standby.waitFor(undefined, 20_000);
      expect(standby.tip()?.number).toBeGreaterThan(0);
    } finally {
      await second?.stop();
      await first.service.stop().catch(() => undefined);
    }
  }, 90_000);
});
