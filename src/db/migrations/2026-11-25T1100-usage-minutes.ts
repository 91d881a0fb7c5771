import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Per-minute aggregates, added to by every API process's batched upsert (src/usage/store.ts); the key
  // starts with the account and the minute because every read is one account's time range.
  await sql`
    create table usage_minutes (
      minute timestamptz not null,
      account_id text not null,
      key_id text not null,
      network text not null,
      method text not null,
      status_class text not null check (status_class in ('2xx', '4xx', '429', '5xx')),
      requests bigint not null,
      compute_units bigint not null,
      primary key (account_id, minute, key_id, network, method, status_class)
    )`.execute(db);
}
