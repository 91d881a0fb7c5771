import { type Kysely, sql } from 'kysely';

/**
 * Keys for production (issue 24): where a key may be used from and on what (`restrictions`), its own
 * limits under the account's, a rotated-out secret that keeps working until its grace ends, and the
 * audit trail of every change.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table api_keys
      add column restrictions jsonb not null default '{}'::jsonb,
      add column limits jsonb not null default '{}'::jsonb,
      add column previous_key_hash text unique,
      add column previous_key_expires_at timestamptz`.execute(db);
  await sql`
    create table api_key_events (
      id bigserial primary key,
      key_id text not null references api_keys (id) on delete cascade,
      account_id text not null,
      action text not null check (action in ('create', 'restrict', 'rotate', 'revoke')),
      actor text not null,
      details jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index api_key_events_key_idx on api_key_events (key_id, id)`.execute(db);
}
