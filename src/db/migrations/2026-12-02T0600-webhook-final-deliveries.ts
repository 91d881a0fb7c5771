import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A delivery of a webhook with `confirmations: "finalized"` waits until the index counts its block
  // (`ready_block`) as final (index_progress.final_block), not a number of blocks below the head.
  await sql`alter table webhook_deliveries add column ready_final boolean not null default false`.execute(db);
}
