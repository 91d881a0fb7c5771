import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A gas sponsorship policy belongs to the account of the API key that created it. DELETE is a soft
  // delete (deleted_at): the spec does not call it permanent (it does for webhooks), and a sponsorship
  // signed before the delete stays valid on chain until it expires, so its reservation must still
  // settle against the policy's row and its usage stays on record. The API treats a deleted policy as
  // absent (404).
  await sql`
    create table gas_policies (
      id text primary key,
      account_id text not null references accounts (id) on delete cascade,
      name text not null,
      chain text not null,
      -- The network's name within the chain ('devnet', 'mainnet').
      network text not null,
      -- The parsed rules of src/sponsorship/policy-rules.ts.
      rules jsonb not null,
      status text not null check (status in ('active', 'paused')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz
    )`.execute(db);
  await sql`
    create index gas_policies_account_idx on gas_policies (account_id, created_at desc, id)
    where deleted_at is null`.execute(db);
}
