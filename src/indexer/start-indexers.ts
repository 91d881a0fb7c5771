import type { ChainRegistry } from '../chains/registry.ts';
import type { Context } from '../context/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import type { BackfillStore } from './backfill-store.ts';
import { createIndexer, type Indexer } from './indexer.ts';
import { createIndexerMetrics } from './indexer-metrics.ts';
import { acquireIndexerLease, type IndexerLease } from './leader-lease.ts';
import type { IndexStore } from './store.ts';

/** Pause before asking again for a lease that was lost. */
const leaseRetryMs = 1000;

/**
 * One indexer per EVM network with indexing enabled, stopped by the shutdown registry. Each starts once
 * it holds its network's lease, so several indexer processes keep one active per network.
 */
export function startIndexers(options: {
  ctx: Context;
  chains: ChainRegistry;
  database: OpenDatabase;
  store: IndexStore;
  backfills: BackfillStore;
  publish: (events: readonly ChainEvent[]) => void;
}): Indexer[] {
  const { ctx, chains, database, store, backfills, publish } = options;
  const networks = chains.list().filter((network) => network.config.kind === 'evm' && network.config.indexer.enabled);
  if (networks.length === 0) return [];
  const metrics = createIndexerMetrics(ctx.metrics.registry);
  return networks.map((network) => {
    const indexer = createIndexer({ network, store, backfills, publish, logger: ctx.logger, metrics });
    let stopping = false;
    let lease: IndexerLease | undefined;
    // Runs while this process holds the lease; a lost lease (its connection ended) stops the indexer
    // at once, since another process may take over, and this one stands by to take it again.
    const follow = async () => {
      while (!stopping) {
        const current = acquireIndexerLease({ url: database.url, registry: ctx.metrics.registry }, indexer.network, ctx.logger);
        lease = current;
        const held = await Promise.race([current.acquired.then(() => true), current.ended.then(() => false)]);
        if (held && !stopping) indexer.start();
        await current.ended;
        await indexer.stop();
        // A standby reports no progress of its own: the holder's gauges are the ones to read.
        metrics.indexedBlock.remove({ network: indexer.network });
        metrics.headBlock.remove({ network: indexer.network });
        if (!stopping) await new Promise((resolve) => setTimeout(resolve, leaseRetryMs));
      }
    };
    const following = follow();
    ctx.shutdown.add(`indexer ${indexer.network}`, async () => {
      stopping = true;
      await indexer.stop();
      await lease?.release();
      await following;
    });
    return indexer;
  });
}
