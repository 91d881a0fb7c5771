import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { startListenConnection } from '../db/listen-connection.ts';
import type { Tables } from '../db/tables.ts';
import type { ChainEventBus } from './chain-event.ts';
import { readChainEvents } from './store.ts';

/** The channel every event writer notifies in the transaction that inserts events. */
export const chainEventsChannel = 'blockyard_chain_events';
const pageSize = 1000;

export interface PostgresEventRelay {
  /** Read what was committed since the last read now (a local writer just committed). */
  poke(): void;
  close(): Promise<void>;
}

/**
 * Every process (indexer or not) receives the chain event stream the same way: a
 * `LISTEN` connection wakes it, and it reads `chain_events` after the last seq it published, in seq
 * order, into the local bus. Events committed before the relay started are not replayed: a consumer
 * that must not miss any resumes from its own stored seq (`readChainEvents`).
 */
export async function startPostgresEventRelay(options: {
  databaseUrl: string;
  db: Kysely<Tables>;
  bus: ChainEventBus;
  logger: Logger;
}): Promise<PostgresEventRelay> {
  const { db, bus, logger } = options;
  const last = await db
    .selectFrom('chain_events')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  let lastSeq = last?.seq ? String(last.seq) : '0';
  let closed = false;
  let reading: Promise<void> | undefined;
  let again = false;

  async function drain() {
    do {
      again = false;
      for (;;) {
        const events = await readChainEvents(db, { afterSeq: lastSeq, limit: pageSize });
        if (events.length === 0) break;
        lastSeq = events[events.length - 1]!.seq;
        bus.publish(events);
        if (events.length < pageSize) break;
      }
    } while (again && !closed);
  }

  function read() {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = drain()
      .catch((error) => logger.warn({ err: error }, 'could not read chain events'))
      .finally(() => {
        reading = undefined;
      });
  }

  const listening = await startListenConnection({
    url: options.databaseUrl,
    channel: chainEventsChannel,
    onNotification: read,
    // Whatever was committed while the connection was down.
    onConnected: read,
    logger,
    name: 'chain event relay',
  });

  return {
    poke: read,
    async close() {
      closed = true;
      await reading;
      await listening.close();
    },
  };
}
