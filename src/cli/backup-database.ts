import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Config } from '../config/schema.ts';
import { describeDatabaseUrl } from '../db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../db/embedded/embedded-postgres.ts';
import { assertNoPgliteDatabase } from '../db/embedded/legacy-pglite.ts';
import { acquireInstanceLock, readInstanceLock } from '../service/instance-lock.ts';

/**
 * Runs `use` with the URL of the database a command works on, as `blockyard migrate` finds it:
 * DATABASE_URL (or --database-url), else the embedded Postgres of the data directory, the running
 * service's when one runs (a backup may read it live: its snapshot is consistent), else started
 * for the time the command takes (`useRunning: false`: never a running service's; the restore
 * needs the directory to itself).
 */
export async function withCommandDatabase<T>(
  config: Config,
  options: { useRunning: boolean },
  use: (url: string, described: string) => Promise<T>,
): Promise<T> {
  if (config.databaseUrl) return use(config.databaseUrl, describeDatabaseUrl(config.databaseUrl));
  const running = options.useRunning ? (await readInstanceLock(config.dataDir))?.databaseUrl : undefined;
  if (running) return use(running, describeDatabaseUrl(running));
  mkdirSync(config.dataDir, { recursive: true });
  const lock = await acquireInstanceLock(config.dataDir);
  let embedded: EmbeddedPostgres | undefined;
  try {
    assertNoPgliteDatabase(config.dataDir);
    const dir = join(config.dataDir, 'postgres');
    embedded = await startEmbeddedPostgres({ dir, logger: pino({ level: 'warn' }) });
    return await use(embedded.url, `embedded, in ${dir}`);
  } finally {
    await embedded?.stop();
    lock.release();
  }
}
