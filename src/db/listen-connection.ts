import pg from 'pg';
import type { Logger } from 'pino';

export interface ListenConnection {
  close(): Promise<void>;
}

/** Between attempts to reconnect: the connection is back within this of the server's return. */
const reconnectMs = 1_000;
const connectTimeoutMs = 5_000;
/**
 * LISTEN answers in milliseconds on a live server. Without a deadline, a server that stopped right
 * after accepting the session (SIGSTOP, a frozen host) would hold the reconnect for ever and the
 * connection would never come back; past this it is dropped and tried again a second later.
 */
const listenTimeoutMs = 5_000;

/**
 * A `LISTEN` connection that comes back by itself: when it breaks, or a reconnect fails (the server is
 * still down), it tries again every second until closed. `onConnected` runs after each LISTEN, so the
 * owner can read what was committed while it was away. Resolves once the first LISTEN is in place;
 * rejects when that first connection fails (a start without a database).
 */
export async function startListenConnection(options: {
  url: string;
  channel: string;
  /** With the notification's payload (NOTIFY's second argument), when it has one. */
  onNotification: (payload?: string) => void;
  onConnected?: () => void;
  logger: Logger;
  /** For the logs: whose connection this is. */
  name: string;
}): Promise<ListenConnection> {
  const { logger, name } = options;
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  function retryLater() {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect().catch((error: unknown) => {
        logger.debug({ err: error }, `${name}: LISTEN reconnect failed; trying again`);
        retryLater();
      });
    }, reconnectMs);
  }

  async function connect() {
    if (closed) return;
    const current = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: listenTimeoutMs,
      keepAlive: true,
    });
    let broken = false;
    current.on('notification', (message) => options.onNotification(message.payload));
    current.on('error', (error) => {
      if (broken) return;
      broken = true;
      logger.warn({ err: error }, `${name}: LISTEN connection lost; reconnecting`);
      current.end().catch(() => undefined);
      retryLater();
    });
    try {
      await current.connect();
      await current.query(`LISTEN ${options.channel}`);
    } catch (error) {
      broken = true;
      // Not awaited: a server that does not answer would not answer the goodbye either.
      current.end().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await current.end().catch(() => undefined);
      return;
    }
    client = current;
    options.onConnected?.();
  }

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
