import type { ChainRegistry } from '../chains/registry.ts';
import type { Context } from '../core/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { createIndexer, type Indexer } from './indexer.ts';
import { createIndexerMetrics } from './indexer-metrics.ts';
import { acquireIndexerLease } from './leader-lease.ts';
import type { IndexStore } from './store.ts';

/**
 * One indexer per EVM network with indexing enabled, stopped by the shutdown registry. On Postgres each
 * starts once it holds its network's lease, so several indexer processes keep one active per network.
 */
export function startIndexers(options: {
  ctx: Context;
  chains: ChainRegistry;
  database: OpenDatabase;
  store: IndexStore;
  publish: (events: readonly ChainEvent[]) => void;
}): Indexer[] {
  const { ctx, chains, database, store, publish } = options;
  const networks = chains.list().filter((network) => network.config.kind === 'evm' && network.config.indexer.enabled);
  if (networks.length === 0) return [];
  const metrics = createIndexerMetrics(ctx.metrics.registry);
  return networks.map((network) => {
    const indexer = createIndexer({ network, store, publish, logger: ctx.logger, metrics });
    if (database.kind === 'pglite') {
      indexer.start();
      ctx.shutdown.add(`indexer ${indexer.network}`, () => indexer.stop());
      return indexer;
    }
    const lease = acquireIndexerLease(database.db, indexer.network, ctx.logger);
    void lease.acquired.then(() => indexer.start());
    ctx.shutdown.add(`indexer ${indexer.network}`, async () => {
      await indexer.stop();
      await lease.release();
    });
    return indexer;
  });
}
