import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { openDatabase } from '../../src/db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/db/embedded/embedded-postgres.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { adminQuery, withDatabase } from '../support/global-setup.ts';
import type { LagDatabase } from './deployment.ts';

/** Throwaway data: durability costs time the run does not need (the test run's own settings). */
const throwawaySettings = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '300' };

/**
 * A fresh, migrated database for the script (outside vitest, which provides the test run's): on
 * DATABASE_URL's server when set, else on an embedded Postgres started in a temp directory.
 */
export async function openLagDatabase(): Promise<LagDatabase> {
  let embedded: EmbeddedPostgres | undefined;
  let dir: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    dir = mkdtempSync(join(tmpdir(), 'blockyard-lag-postgres-'));
    embedded = await startEmbeddedPostgres({ dir, logger: pino({ level: 'warn' }), settings: throwawaySettings });
    serverUrl = embedded.urlFor('postgres');
  }
  const name = `bk_lag_${randomBytes(6).toString('hex')}`;
  const server = serverUrl;
  const cleanUp = async () => {
    await adminQuery(server, `drop database if exists ${name} with (force)`).catch(() => undefined);
    await embedded?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
  try {
    await adminQuery(server, `create database ${name}`);
    const opened = await openDatabase({ url: withDatabase(server, name) });
    await migrateToLatest(opened.db);
    return {
      db: opened.db,
      url: opened.url,
      async close() {
        await opened.close();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
