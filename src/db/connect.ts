import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';
import { ensurePgliteDataDir } from './pglite-initdb.ts';
import type { Tables } from './tables.ts';

export type Database = Kysely<Tables>;

export interface DatabaseTarget {
  /** A Postgres server; absent: embedded PGlite. */
  databaseUrl?: string;
  /** Where PGlite keeps its files; absent: in memory. */
  pgliteDir?: string;
  /** Told when a pooled connection breaks (the server restarted or ended it); absent: ignored. */
  onConnectionError?: (error: Error) => void;
}

export interface OpenDatabase {
  readonly db: Database;
  readonly kind: 'postgres' | 'pglite';
  /** The server's URL (Postgres only): for connections outside the pool, such as LISTEN. */
  readonly url?: string;
  close(): Promise<void>;
}

// numeric and int8 come back as strings: uint256 values must never pass through a float.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => value);

export async function openDatabase(target: DatabaseTarget): Promise<OpenDatabase> {
  if (target.databaseUrl) {
    const pool = new pg.Pool({ connectionString: target.databaseUrl, max: 10 });
    // A connection that breaks (the server restarted or ended the session) emits 'error' on its client,
    // and on the pool too while idle: without listeners that is an uncaught error that ends the
    // process. The query on it fails; the pool drops the connection and the next query opens another.
    pool.on('connect', (client) => client.on('error', (error) => target.onConnectionError?.(error)));
    pool.on('error', () => undefined); // the same error, already reported by the client's listener
    // Fail at start, not at the first request, when the server cannot be reached.
    const client = await pool.connect().catch(async (error: Error) => {
      await pool.end().catch(() => undefined);
      throw new Error(`cannot connect to DATABASE_URL: ${error.message}`, { cause: error });
    });
    client.release();
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', url: target.databaseUrl, close: () => db.destroy() };
  }
  if (target.pgliteDir) {
    mkdirSync(target.pgliteDir, { recursive: true });
    await ensurePgliteDataDir(target.pgliteDir);
  }
  const pglite = new PGlite(target.pgliteDir, {
    // int8 as a string on both backends (pg is set the same way above).
    parsers: { 20: (value: string) => value },
    // PGlite's 128 MB of shared buffers are resident from the start (WebAssembly memory never shrinks);
    // 32 MB keeps an API process ~110 MB smaller, and the OS page cache still holds the files.
    postgresqlconf: ['shared_buffers=32MB'],
  });
  const db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) });
  return { db, kind: 'pglite', close: () => db.destroy() };
}
