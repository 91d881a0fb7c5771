import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { preparingPool } from './prepared-statements.ts';
import { createStallGuard } from './stall-guard.ts';
import type { Tables } from './tables.ts';

export type Database = Kysely<Tables>;

export interface DatabaseTarget {
  /** A Postgres server (15 or newer): the embedded one's URL or DATABASE_URL. */
  url: string;
  /** Connections in the pool at most (default 10). */
  maxConnections?: number;
  /**
   * The sessions' statement_timeout (absent or 0: none): a statement running longer is cancelled
   * and fails with a 503 naming the limit (limits.statement_timeout_ms).
   */
  statementTimeoutMs?: number;
}

/** Told once for each pooled connection that breaks (the server restarted, failed over or ended it). */
export type ConnectionLossListener = (error: Error) => void;

export interface OpenDatabase {
  readonly db: Database;
  /** The server's URL: for connections outside the pool, such as LISTEN. */
  readonly url: string;
  /** Adds a listener of broken pooled connections; absent on a database opened elsewhere. */
  onConnectionLost?(listener: ConnectionLossListener): void;
  /** True while the server is down or suspected stalled (its stall guard probing it); absent elsewhere. */
  stalled?(): boolean;
  close(): Promise<void>;
}

/**
 * A backstop only: a server that is stopped is noticed sooner by the stall guard, which probes it
 * (a full pool on a live server, whose probe answers, is waited for).
 */
const connectTimeoutMs = 10_000;

// numeric and int8 come back as strings: uint256 values must never pass through a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

export async function openDatabase(target: DatabaseTarget): Promise<OpenDatabase> {
  const max = target.maxConnections ?? 10;
  const pool = new pg.Pool({
    connectionString: target.url,
    max,
    // The pool keeps every connection it opened. pg's default closes one idle for 10 s, so a request
    // after a quiet spell paid a new session: about 20 ms to connect and authenticate, then its first
    // statements planned and functions compiled again in a backend with cold caches.
    min: max,
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    // Kept connections may sit idle for long: TCP keepalives after 30 s of silence (not the kernel's two
    // hours) keep a NAT or firewall between here and the server from dropping them unseen.
    keepAliveInitialDelayMillis: 30_000,
    ...(target.statementTimeoutMs ? { statement_timeout: target.statementTimeoutMs } : {}),
  });
  // A connection that breaks (the server restarted or ended the session) emits 'error' on its client,
  // and on the pool too while idle: without listeners that is an uncaught error that ends the
  // process. The query on it fails; the pool drops the connection and the next query opens another.
  // A connection ended by the server errors twice (its FATAL message, then the closed socket): told once.
  const lossListeners: ConnectionLossListener[] = [];
  pool.on('connect', (client) => {
    let told = false;
    client.on('error', (error) => {
      if (told) return;
      told = true;
      for (const listener of lossListeners) listener(error);
    });
  });
  pool.on('error', () => undefined); // the same error, already reported by the client's listener
  // Fail at start, not at the first request, when the server cannot be reached.
  const client = await pool.connect().catch(async (error: Error) => {
    await pool.end().catch(() => undefined);
    throw new Error(`cannot connect to the database at ${describeDatabaseUrl(target.url)}: ${error.message}`, { cause: error });
  });
  try {
    const { rows } = await client.query<{ server_version_num: string }>('show server_version_num');
    assertSupportedServer(Number(rows[0]?.server_version_num), target.url);
  } catch (error) {
    client.release();
    await pool.end().catch(() => undefined);
    throw error;
  }
  client.release();
  const stalls = createStallGuard({ url: target.url });
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: stalls.guard(preparingPool(pool)) }) });
  return {
    db,
    url: target.url,
    onConnectionLost: (listener) => lossListeners.push(listener),
    stalled: () => stalls.suspect,
    close: async () => {
      stalls.close();
      await db.destroy();
    },
  };
}

/** The oldest Postgres Blockyard supports: CI runs the whole suite on it (Debian 12's). */
export const minimumServerVersion = 150000;

/** Refuses a server older than 15, by its `server_version_num` (150004 is 15.4). */
export function assertSupportedServer(versionNum: number, url: string): void {
  if (Number.isInteger(versionNum) && versionNum >= minimumServerVersion) return;
  const version = Number.isInteger(versionNum) ? `${Math.floor(versionNum / 10000)}.${versionNum % 10000}` : 'unknown';
  throw new Error(
    `the database at ${describeDatabaseUrl(url)} is PostgreSQL ${version}; Blockyard needs 15 or newer (point DATABASE_URL at another server, or leave it unset for the embedded one)`,
  );
}

/** host:port/database, never the password. */
export function describeDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'DATABASE_URL (not a valid URL)';
  }
}
