import type { ChainRegistry } from '../chains/registry.ts';
import type { Context } from '../core/context.ts';
import type { ChainEventBus } from '../events/chain-event.ts';
import { createIndexer, type Indexer } from './indexer.ts';
import { createIndexerMetrics } from './indexer-metrics.ts';
import type { IndexStore } from './store.ts';

/** One indexer per EVM network with indexing enabled, started now and stopped by the shutdown registry. */
export function startIndexers(options: {
  ctx: Context;
  chains: ChainRegistry;
  store: IndexStore;
  events: ChainEventBus;
}): Indexer[] {
  const { ctx, chains, store, events } = options;
  const networks = chains.list().filter((network) => network.config.kind === 'evm' && network.config.indexer.enabled);
  if (networks.length === 0) return [];
  const metrics = createIndexerMetrics(ctx.metrics.registry);
  return networks.map((network) => {
    const indexer = createIndexer({ network, store, bus: events, logger: ctx.logger, metrics });
    indexer.start();
    ctx.shutdown.add(`indexer ${indexer.network}`, () => indexer.stop());
    return indexer;
  });
}
