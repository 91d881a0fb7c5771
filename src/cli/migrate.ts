import { join } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { openDatabase } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { parseConfigFlags } from './flags.ts';

/** `blockyard migrate`: applies pending migrations and exits (`start` does the same on its own). */
export async function runMigrate(args: string[]): Promise<number> {
  const config = loadConfig({ flags: parseConfigFlags(args) });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: join(config.dataDir, 'pglite') });
  try {
    const applied = await migrateToLatest(database.db);
    process.stdout.write(`${JSON.stringify({ database: database.kind, applied })}\n`);
    return 0;
  } finally {
    await database.close();
  }
}
