import type { Kysely, Migration } from 'kysely';
import type { Database } from '../../src/db/connect.ts';
import { migrationNames } from '../../src/db/migrate.ts';

/** Runs one migration by name, in a transaction of its own, as the migrator would. */
export async function runMigration(db: Database, name: string): Promise<void> {
  const migration = (await import(new URL(`../../src/db/migrations/${name}.ts`, import.meta.url).href)) as Migration;
  await db.transaction().execute((trx) => migration.up(trx as unknown as Kysely<unknown>));
}

/**
 * Runs the migrations before `target` (after `from`, when the database already went that far): the
 * schema a previous release left, for a test of `target`'s data change.
 */
export async function migrateUpTo(db: Database, target: string, from?: string): Promise<void> {
  const first = from === undefined ? 0 : migrationNames.indexOf(from) + 1;
  for (const name of migrationNames.slice(first, migrationNames.indexOf(target))) await runMigration(db, name);
}
