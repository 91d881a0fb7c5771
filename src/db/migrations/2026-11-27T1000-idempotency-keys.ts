import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Idempotency-Key (src/http/idempotency): a create's key, who owns it (account, dashboard user or
  // admin token hash), the request it was first used with, and its answer once it ran (sealed: it can
  // hold a new API key or signing secret). Kept 24 h, then swept.
  await sql`
    create table idempotency_keys (
      owner text not null,
      key text not null check (length(key) between 1 and 255),
      request_hash text not null,
      state text not null check (state in ('running', 'done')),
      status integer,
      body text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (owner, key),
      check (state = 'running' or (status is not null and body is not null))
    )`.execute(db);
  await sql`create index idempotency_keys_created_idx on idempotency_keys (created_at)`.execute(db);
}
