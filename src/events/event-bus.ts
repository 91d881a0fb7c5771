import type { Logger } from 'pino';
import type { ChainEvent, ChainEventBus, ChainEventListener } from './chain-event.ts';

/**
 * The in-process bus: the indexer publishes each committed batch, listeners (NFT metadata, and the
 * webhook and WebSocket consumers to come) get it synchronously in seq order. A listener that throws is
 * logged and does not stop the others. Consumers in other processes read the table from their own seq
 * (`readChainEvents`) when Postgres notifies `blockyard_chain_events`.
 */
export function createInProcessEventBus(logger: Logger): ChainEventBus {
  const listeners = new Set<ChainEventListener>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    publish(events: readonly ChainEvent[]) {
      if (events.length === 0) return;
      for (const listener of listeners) {
        try {
          listener(events);
        } catch (error) {
          logger.error({ err: error }, 'a chain event listener failed');
        }
      }
    },
    async close() {
      listeners.clear();
    },
  };
}
