import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type Database, type OpenDatabase, openDatabase } from '../../src/db/connect.ts';
import { adminQuery, withDatabase } from './global-setup.ts';

export interface TestDatabase {
  readonly db: Database;
  /** The per-test database's URL, for a test that starts a whole server or another process against it. */
  readonly url: string;
  /** The pool's broken connections, which a service on this database counts (blockyard_dependency_connections_lost_total). */
  onConnectionLost?: OpenDatabase['onConnectionLost'];
  /** Destroys the Kysely instance and drops the per-test database. */
  close(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** Migrated (default true); false gives an empty database, for migration tests. */
  migrate?: boolean;
  /** The pool's statement_timeout, as the service sets its own from limits.statement_timeout_ms. */
  statementTimeoutMs?: number;
}

/** The run's Postgres server (DATABASE_URL's or the embedded one the global setup started), database `postgres`. */
export function testServerUrl(): string {
  return inject('testServerUrl');
}

/**
 * A fresh database for one test (file): a new `bk_test_<random>` database on the run's Postgres server,
 * copied from the migrated template (or empty), dropped on close.
 */
export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const serverUrl = testServerUrl();
  const name = `bk_test_${randomBytes(6).toString('hex')}`;
  const template = options.migrate === false ? 'template0' : inject('migratedTemplate');
  await adminQuery(serverUrl, `create database ${name} template ${template}`);
  const url = withDatabase(serverUrl, name);
  const dropIt = () => adminQuery(serverUrl, `drop database if exists ${name} with (force)`);
  let opened: Awaited<ReturnType<typeof openDatabase>>;
  try {
    opened = await openDatabase({ url, statementTimeoutMs: options.statementTimeoutMs });
  } catch (error) {
    await dropIt().catch(() => undefined);
    throw error;
  }
  let closed = false;
  return {
    db: opened.db,
    url,
    onConnectionLost: opened.onConnectionLost,
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
