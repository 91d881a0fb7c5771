import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The operator's caps on an account sum its sponsorships across all its policies, at every sponsor call.
  await sql`create index gas_sponsorships_account_idx on gas_sponsorships (account_id, created_at)`.execute(db);
}
