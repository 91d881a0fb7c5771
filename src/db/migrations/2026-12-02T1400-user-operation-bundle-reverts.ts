import { type Kysely, sql } from 'kysely';

// How many bundles carrying an op reverted on chain: such an op is bundled alone, and dropped at a limit.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table user_operations add column bundle_reverts smallint not null default 0`.execute(db);
}
