import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/db/embedded/embedded-postgres.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The Postgres server tests make their databases on: DATABASE_URL's, or an embedded one for this run. */
    testServerUrl: string;
    /** A migrated database on it that per-test databases are copied from (`create database … template`). */
    migratedTemplate: string;
  }
}

/** Durability is not needed for throwaway test data; these make the server several times faster. */
const throwawaySettings = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' };

/**
 * One Postgres server for the whole run: DATABASE_URL's when set (CI runs against Debian's Postgres 15
 * that way), else the embedded server the service itself uses, in a temp directory. Migrating a
 * database once and copying it per test file is much faster than migrating each.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedPostgres | undefined;
  let dir: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    dir = mkdtempSync(join(tmpdir(), 'blockyard-test-postgres-'));
    embedded = await startEmbeddedPostgres({ dir, logger: pino({ level: 'warn' }), settings: throwawaySettings });
    serverUrl = embedded.urlFor('postgres');
  }
  const template = `bk_template_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${template}`);
  const database = await openDatabase({ url: withDatabase(serverUrl, template) });
  try {
    await migrateToLatest(database.db);
  } finally {
    await database.close();
  }
  project.provide('testServerUrl', serverUrl);
  project.provide('migratedTemplate', template);
  return async () => {
    await adminQuery(serverUrl, `drop database if exists ${template} with (force)`).catch(() => undefined);
    await embedded?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}

/** The same server and credentials, another database. */
export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function adminQuery(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
