import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The bundler's mempool and its record of what was bundled: it survives restarts.
  await sql`
    create table user_operations (
      hash text primary key,
      network text not null,
      entry_point text not null,
      entry_point_version text not null check (entry_point_version in ('0.6', '0.7')),
      sender text not null,
      nonce numeric(78, 0) not null,
      op jsonb not null,
      max_fee_per_gas numeric(78, 0) not null,
      max_priority_fee_per_gas numeric(78, 0) not null,
      status text not null check (status in ('pending', 'submitted', 'included', 'failed', 'replaced')),
      reason text,
      tx_hash text,
      block_number int8,
      block_hash text,
      receipt jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index user_operations_queue_idx on user_operations (network, created_at) where status = 'pending'`.execute(db);
  await sql`create index user_operations_sender_idx on user_operations (network, entry_point, sender, nonce)`.execute(db);
  await sql`
    create unique index user_operations_live_idx on user_operations (network, entry_point, sender, nonce)
    where status in ('pending', 'submitted')`.execute(db);
}
