import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../config/load.ts';
import { describeDatabaseUrl, openDatabase } from '../db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../db/embedded/embedded-postgres.ts';
import { assertNoPgliteDatabase } from '../db/embedded/legacy-pglite.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { acquireInstanceLock, readInstanceLock } from '../service/instance-lock.ts';
import { parseConfigFlags } from './flags.ts';

/**
 * `blockyard migrate`: applies pending migrations and exits (`start` does the same on its own). Without
 * DATABASE_URL it uses the embedded server: the running service's, or its own for the time it takes.
 */
export async function runMigrate(args: string[]): Promise<number> {
  const config = loadConfig({ flags: parseConfigFlags(args) });
  let url = config.databaseUrl ?? (await readInstanceLock(config.dataDir))?.databaseUrl;
  let embedded: EmbeddedPostgres | undefined;
  const lock = url ? undefined : await acquireInstanceLock(config.dataDir);
  try {
    if (!url) {
      assertNoPgliteDatabase(config.dataDir);
      embedded = await startEmbeddedPostgres({ dir: join(config.dataDir, 'postgres'), logger: pino({ level: 'warn' }) });
      url = embedded.url;
    }
    const database = await openDatabase({ url });
    try {
      const applied = await migrateToLatest(database.db);
      process.stdout.write(`${JSON.stringify({ database: describeDatabaseUrl(url), applied })}\n`);
      return 0;
    } finally {
      await database.close();
    }
  } finally {
    await embedded?.stop();
    lock?.release();
  }
}
