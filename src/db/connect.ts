import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Tables } from './tables.ts';

export type Database = Kysely<Tables>;

export interface DatabaseTarget {
  /** A Postgres server (15 or newer): the embedded one's URL or DATABASE_URL. */
  url: string;
  /** Connections in the pool at most (default 10). */
  maxConnections?: number;
  /** Told when a pooled connection breaks (the server restarted or ended it); absent: ignored. */
  onConnectionError?: (error: Error) => void;
}

export interface OpenDatabase {
  readonly db: Database;
  /** The server's URL: for connections outside the pool, such as LISTEN. */
  readonly url: string;
  close(): Promise<void>;
}

// numeric and int8 come back as strings: uint256 values must never pass through a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

export async function openDatabase(target: DatabaseTarget): Promise<OpenDatabase> {
  const pool = new pg.Pool({ connectionString: target.url, max: target.maxConnections ?? 10 });
  // A connection that breaks (the server restarted or ended the session) emits 'error' on its client,
  // and on the pool too while idle: without listeners that is an uncaught error that ends the
  // process. The query on it fails; the pool drops the connection and the next query opens another.
  pool.on('connect', (client) => client.on('error', (error) => target.onConnectionError?.(error)));
  pool.on('error', () => undefined); // the same error, already reported by the client's listener
  // Fail at start, not at the first request, when the server cannot be reached.
  const client = await pool.connect().catch(async (error: Error) => {
    await pool.end().catch(() => undefined);
    throw new Error(`cannot connect to the database at ${describeDatabaseUrl(target.url)}: ${error.message}`, { cause: error });
  });
  client.release();
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
  return { db, url: target.url, close: () => db.destroy() };
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
