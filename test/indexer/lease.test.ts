import { describe, expect, it } from 'vitest';
import { testDatabaseKind } from '../support/database.ts';
import { startTestService } from '../support/service.ts';
import { startIndexedChain } from './support.ts';

// The lease is a Postgres advisory lock; PGlite is a single process and runs without one.
describe.runIf(testDatabaseKind() === 'postgres')('indexer lease on Postgres', () => {
  it('keeps one active indexer per network and hands over when it stops', async () => {
    const first = await startIndexedChain();
    let second: Awaited<ReturnType<typeof startTestService>> | undefined;
    try {
      await first.synced();
      second = await startTestService({ sharing: first.service, chainsFor: () => first.chainsConfig });
      const standby = second.service.indexers[0]!;
      await first.wallet.sendTransaction({ to: '0x000000000000000000000000000000000000beef', value: 1n });
      await first.synced();
      expect(standby.tip()).toBeUndefined();

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
