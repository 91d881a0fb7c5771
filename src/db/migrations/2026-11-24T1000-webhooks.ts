import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Where an account's notices (a paused webhook) are mailed.
  await sql`alter table accounts add column email text`.execute(db);

  await sql`
    create table webhooks (
      id text primary key,
      account_id text not null references accounts (id) on delete cascade,
      url text not null,
      chain text not null,
      network text not null,
      event_type text not null,
      config jsonb not null,
      payload_format text not null check (payload_format in ('snake_case', 'camelCase')),
      status text not null check (status in ('active', 'paused', 'disabled')),
      status_reason text,
      -- Set when the endpoint answered 410 (its owner may resume it) or an operator disabled it (only they can).
      disabled_by text check (disabled_by in ('endpoint', 'operator')),
      secret_ciphertext text not null,
      previous_secret_ciphertext text,
      previous_secret_expires_at timestamptz,
      -- Events with a seq up to this one happened before the webhook existed: never matched live.
      start_seq int8 not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index webhooks_account_idx on webhooks (account_id, created_at, id)`.execute(db);
  await sql`create index webhooks_network_idx on webhooks (network, event_type)`.execute(db);

  // One row per (webhook, fact): the event id is fixed here and never changes through retries, redeliveries and replays.
  await sql`
    create table webhook_events (
      id text primary key,
      webhook_id text not null references webhooks (id) on delete cascade,
      -- What the event is about: a chain event seq, 'pending:<tx hash>', 'removal:<seq>' or 'test:<random>'.
      source_key text not null,
      chain_seq int8,
      event_type text not null,
      block_number int8,
      removed boolean not null default false,
      removes_event_id text,
      test boolean not null default false,
      data jsonb not null,
      created_at timestamptz not null default now(),
      unique (webhook_id, source_key)
    )`.execute(db);
  await sql`create index webhook_events_seq_idx on webhook_events (chain_seq) where chain_seq is not null`.execute(db);
  await sql`create index webhook_events_block_idx on webhook_events (webhook_id, block_number)`.execute(db);

  // The outbox: a delivery is one event to send to one webhook (first sending, a redelivery or a replay).
  await sql`
    create table webhook_deliveries (
      position bigserial primary key,
      id text not null unique,
      webhook_id text not null references webhooks (id) on delete cascade,
      account_id text not null,
      event_id text not null references webhook_events (id) on delete cascade,
      network text not null,
      kind text not null check (kind in ('event', 'redelivery', 'replay', 'test')),
      status text not null check (status in ('pending', 'succeeded', 'failed', 'cancelled')),
      attempts int not null default 0,
      -- Not sent before the network's indexed head reaches this block (confirmations).
      ready_block int8,
      next_attempt_at timestamptz not null default now(),
      note text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    create index webhook_deliveries_due_idx on webhook_deliveries (webhook_id, position)
    where status = 'pending'`.execute(db);
  await sql`
    create index webhook_deliveries_next_idx on webhook_deliveries (webhook_id, next_attempt_at)
    where status = 'pending'`.execute(db);
  await sql`create index webhook_deliveries_log_idx on webhook_deliveries (webhook_id, position desc)`.execute(db);
  await sql`create index webhook_deliveries_event_idx on webhook_deliveries (event_id)`.execute(db);

  await sql`
    create table webhook_attempts (
      id bigserial primary key,
      delivery_id text not null references webhook_deliveries (id) on delete cascade,
      webhook_id text not null,
      attempt int not null,
      attempted_at timestamptz not null,
      request_url text not null,
      request_headers jsonb not null,
      request_body text not null,
      response_status int,
      response_body text,
      latency_ms int not null,
      error text
    )`.execute(db);
  await sql`create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, id)`.execute(db);

  // Deliveries sent per account and UTC day, against the plan's webhook_deliveries_per_day.
  await sql`
    create table webhook_daily_usage (
      account_id text not null,
      day date not null,
      deliveries int not null,
      primary key (account_id, day)
    )`.execute(db);

  // Where the matcher stopped in the chain event stream.
  await sql`
    create table webhook_matcher_cursor (
      name text primary key,
      seq int8 not null
    )`.execute(db);
}
