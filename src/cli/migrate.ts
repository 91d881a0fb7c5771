import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../config/load.ts';
import { describeDatabaseUrl, openDatabase } from '../db/connect.ts';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../db/embedded/embedded-postgres.ts';
import { assertNoPgliteDatabase } from '../db/embedded/legacy-pglite.ts';
import { migrateToLatest, migrationNames, pendingMigrations } from '../db/migrate.ts';
import { acquireInstanceLock, readInstanceLock } from '../service/instance-lock.ts';
import { parseMigrateFlags } from './flags.ts';

export const migrateUsage = `Usage: blockyard migrate [--dry-run] [--data-dir DIR] [--database-url URL] [--config FILE]

Applies the pending database migrations and exits (blockyard start applies them too). Prints JSON:
{"database":"host:port/name","applied":[...]}. Without DATABASE_URL (or --database-url) it uses the
embedded Postgres of the data directory: the running service's, or its own for the time it takes.

Options:
  --dry-run            list the pending migrations, in the order they would run, and change nothing:
                       {"database":...,"dry_run":true,"pending":[...]}
  --database-url URL   the Postgres server (default: DATABASE_URL, else the embedded one)
  --data-dir DIR       where the embedded Postgres lives (default: BLOCKYARD_DATA_DIR, else ./.blockyard)
  --config FILE        the settings file (default: BLOCKYARD_CONFIG, else ./blockyard.yaml)
  -h, --help           print this and exit`;

/**
 * `blockyard migrate`: applies pending migrations and exits (`start` does the same on its own), or with
 * `--dry-run` lists them. Without DATABASE_URL it uses the embedded server: the running service's, or
 * its own for the time it takes.
 */
export async function runMigrate(args: string[]): Promise<number> {
  const { flags, dryRun, help } = parseMigrateFlags(args);
  if (help) {
    process.stdout.write(`${migrateUsage}\n`);
    return 0;
  }
  const config = loadConfig({ flags });
  let url = config.databaseUrl ?? (await readInstanceLock(config.dataDir))?.databaseUrl;
  // A dry run creates nothing: with no embedded database yet, every migration is pending.
  if (dryRun && !url && !existsSync(join(config.dataDir, 'postgres', 'data', 'PG_VERSION'))) {
    return print({
      database: `embedded, not created yet in ${join(config.dataDir, 'postgres')}`,
      dry_run: true,
      pending: migrationNames,
    });
  }
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
      const described = describeDatabaseUrl(url);
      if (dryRun) return print({ database: described, dry_run: true, pending: await pendingMigrations(database.db) });
      return print({ database: described, applied: await migrateToLatest(database.db) });
    } finally {
      await database.close();
    }
  } finally {
    await embedded?.stop();
    lock?.release();
  }
}

function print(result: Record<string, unknown>): number {
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}
