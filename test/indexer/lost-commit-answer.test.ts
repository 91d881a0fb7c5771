import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { createChainRegistry } from '../../src/chains/registry.ts';
import { buildChains } from '../../src/config/chain-settings.ts';
import { createBackfillStore } from '../../src/indexer/backfill-store.ts';
import { createIndexer } from '../../src/indexer/indexer.ts';
import { createIndexerMetrics } from '../../src/indexer/indexer-metrics.ts';
import { createIndexStore, type IndexStore } from '../../src/indexer/store.ts';
import { captureLogs } from '../lag/log-capture.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase } from '../support/database.ts';

/**
 * A write whose answer is lost after it committed (the connection dropped after COMMIT reached the
 * server, or the stall guard gave up on a slow link: the cluster run's lossy link did this) must not
 * wedge the indexer: it reads its tip back instead of inserting the same block again for good.
 */
describe('the indexer after a write whose answer was lost', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  }, 30_000);

  it('reads its tip back and indexes on, without a duplicate-key loop', async () => {
    const anvil = await startTestAnvil({ blockTimeS: 1 });
    cleanups.push(() => anvil.stop());
    const database = await createTestDatabase();
    cleanups.push(() => database.close());
    const registry = new Registry();
    const entry = {
      chain: 'ethereum',
      network: 'devnet',
      chain_id: 31337,
      testnet: true,
      block_time_s: 1,
      upstreams: [{ url: anvil.url }],
      indexer: { enabled: true, start_block: 0 },
    };
    const chains = createChainRegistry(buildChains([entry], 1, 'lost-commit'), { metricsRegistry: registry });
    cleanups.push(() => chains.close());
    const real = createIndexStore(database.db);
    let lostAnswers = 0;
    const store: IndexStore = {
      ...real,
      async writeBlocks(network, blocks) {
        const events = await real.writeBlocks(network, blocks);
        // The first two writes commit, and their answers never arrive.
        if (lostAnswers < 2) {
          lostAnswers++;
          throw new Error('Connection terminated unexpectedly');
        }
        return events;
      },
    };
    const logs = captureLogs();
    const indexer = createIndexer({
      network: chains.list()[0]!,
      store,
      backfills: createBackfillStore(database.db),
      publish: () => {},
      logger: pino({ level: 'debug' }, logs.destination),
      metrics: createIndexerMetrics(registry),
    });
    indexer.start();
    cleanups.push(() => indexer.stop());

    const head = Number(
      await (
        (await fetch(anvil.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
        }).then((response) => response.json())) as { result: string }
      ).result,
    );
    const deadline = Date.now() + 20_000;
    let tip = -1;
    while (Date.now() < deadline && tip < head + 2) {
      tip = (await real.tip('ethereum/devnet'))?.number ?? -1;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(lostAnswers).toBe(2);
    expect(tip).toBeGreaterThanOrEqual(head + 2);
    expect(JSON.stringify(logs.warnings)).not.toMatch(/duplicate key/);
    expect(logs.warnings.length).toBeGreaterThanOrEqual(2);
  }, 40_000);
});
