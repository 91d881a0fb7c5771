import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { type Database, openDatabase } from '../../src/db/connect.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

export interface TestDatabase {
  readonly db: Database;
  readonly kind: 'postgres' | 'pglite';
  /** The per-test database's URL (Postgres only), for a test that starts a whole server against it. */
  readonly url?: string;
  /** Destroys the Kysely instance; on Postgres also drops the per-test database. */
  close(): Promise<void>;
}

/** Which backend this test run uses: a real server when DATABASE_URL is set, else PGlite. */
export function testDatabaseKind(): 'postgres' | 'pglite' {
  return process.env.DATABASE_URL ? 'postgres' : 'pglite';
}

export interface TestDatabaseOptions {
  /** Apply the migrations (default true); false gives an empty database, for migration tests. */
  migrate?: boolean;
}

/**
 * A fresh, migrated database for one test (file): a new `bk_test_<random>` database on the server
 * named by DATABASE_URL, or an in-memory PGlite when it is not set.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  const serverUrl = process.env.DATABASE_URL;
  const template = inject('pgliteTemplate');
  if (!serverUrl && migrate && template) {
    const dir = mkdtempSync(join(tmpdir(), 'blockyard-pglite-'));
    cpSync(template, dir, { recursive: true });
    const opened = await openDatabase({ pgliteDir: dir });
    return {
      db: opened.db,
      kind: 'pglite',
      async close() {
        await opened.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!serverUrl) {
    const opened = await openDatabase({});
    try {
      if (migrate) await migrateToLatest(opened.db);
    } catch (error) {
      await opened.close();
      throw error;
    }
    return { db: opened.db, kind: 'pglite', close: () => opened.close() };
  }

  const name = `bk_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${name}`);
  const url = databaseUrlFor(serverUrl, name);
  const dropIt = () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
  let opened: Awaited<ReturnType<typeof openDatabase>>;
  try {
    opened = await openDatabase({ databaseUrl: url });
  } catch (error) {
    await dropIt().catch(() => undefined);
    throw error;
  }
  try {
    if (migrate) await migrateToLatest(opened.db);
  } catch (error) {
    await opened.close().catch(() => undefined);
    await dropIt().catch(() => undefined);
    throw error;
  }
  let closed = false;
  return {
    db: opened.db,
    kind: 'postgres',
    url,
    async close() {
      if (closed) return;
      closed = true;
      try {
        await opened.close();
      } finally {
        await dropIt();
      }
    },
  };
}

/** The same server and credentials, another database. */
function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
