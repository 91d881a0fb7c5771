import { type Kysely, sql } from 'kysely';

// Each key's last request (the dashboard's `last_used_at`) is one descent of this index per key; by the
// primary key alone it was a scan of every row the account ever wrote (a row per minute, key, method).
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index usage_minutes_by_key on usage_minutes (account_id, key_id, minute)`.execute(db);
}
