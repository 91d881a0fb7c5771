import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per sponsorship: the op's most possible cost reserved against its policy's caps until the
  // op lands (settled at its actual cost) or its signature expires unused (released).
  await sql`
    create table gas_sponsorships (
      id text primary key,
      policy_id text not null,
      account_id text not null,
      network text not null,
      entry_point text not null,
      sender text not null,
      user_op_hash text not null,
      max_cost_wei numeric(78, 0) not null,
      reserved_usd numeric(38, 12) not null,
      actual_cost_wei numeric(78, 0),
      actual_usd numeric(38, 12),
      status text not null check (status in ('reserved', 'settled', 'released')),
      valid_until timestamptz not null,
      created_at timestamptz not null default now(),
      settled_at timestamptz
    )`.execute(db);
  await sql`create index gas_sponsorships_policy_idx on gas_sponsorships (policy_id, sender, created_at)`.execute(db);
  await sql`create index gas_sponsorships_open_idx on gas_sponsorships (network, valid_until) where status = 'reserved'`.execute(
    db,
  );
  await sql`create index gas_sponsorships_hash_idx on gas_sponsorships (user_op_hash)`.execute(db);
}
