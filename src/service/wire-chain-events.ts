import type { Context } from '../context/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import type { ChainEventBus } from '../events/chain-event.ts';
import { createInProcessEventBus } from '../events/event-bus.ts';
import { type PostgresEventRelay, startPostgresEventRelay } from '../events/postgres-relay.ts';

export interface ChainEvents {
  /** Every chain event of every network, in seq order, in this process. */
  readonly events: ChainEventBus;
  /** Reads new events from the table into `events`; poked by this process's indexers after a commit. */
  readonly relay: PostgresEventRelay;
}

/** The chain event stream: every process gets it from the table (LISTEN/NOTIFY), in seq order. */
export async function wireChainEvents(ctx: Context, database: OpenDatabase): Promise<ChainEvents> {
  const { logger, shutdown } = ctx;
  const events = createInProcessEventBus(logger);
  shutdown.add('chain events', () => events.close());
  const relay = await startPostgresEventRelay({ databaseUrl: database.url, db: database.db, bus: events, logger });
  shutdown.add('chain event relay', () => relay.close());
  return { events, relay };
}
