import { type Kysely, sql } from 'kysely';

/**
 * A webhook deleted while a worker is sending its deliveries (their rows locked for as long as the
 * receiver takes to answer) is marked deleted and disabled at once, and its rows are removed once the
 * worker is done: deleting them then would wait on those locks.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhooks add column deleted_at timestamptz`.execute(db);
  await sql`create index webhooks_deleted_idx on webhooks (deleted_at) where deleted_at is not null`.execute(db);
}
