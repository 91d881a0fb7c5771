import { type Kysely, sql } from 'kysely';

// EntryPoint v0.8 beside v0.6 and v0.7: ops in the mempool and smart wallets may name it.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['user_operations', 'wallets']) {
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_entry_point_version_check`)}`.execute(db);
    await sql`
      alter table ${sql.table(table)} add constraint ${sql.id(`${table}_entry_point_version_check`)}
      check (entry_point_version in ('0.6', '0.7', '0.8'))`.execute(db);
  }
}
