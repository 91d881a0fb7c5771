import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table accounts (
      id text primary key,
      name text not null,
      plan text not null check (plan in ('free', 'growth', 'enterprise')),
      limits jsonb not null default '{}'::jsonb,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create table api_keys (
      id text primary key,
      account_id text not null references accounts (id) on delete cascade,
      name text not null,
      environment text not null check (environment in ('test', 'live')),
      prefix text not null,
      key_hash text not null unique,
      scopes jsonb not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`.execute(db);
  await sql`create index api_keys_account_idx on api_keys (account_id, created_at, id)`.execute(db);
}
