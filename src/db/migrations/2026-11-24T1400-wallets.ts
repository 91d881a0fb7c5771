import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A smart wallet belongs to the API key that created it (the spec's "wallets of the API key").
  await sql`
    create table wallets (
      key_id text not null references api_keys (id) on delete cascade,
      account_id text not null,
      network text not null,
      address text not null,
      chain text not null,
      owner text not null,
      salt numeric(78, 0) not null,
      entry_point_version text not null check (entry_point_version in ('0.6', '0.7')),
      entry_point text not null,
      factory text not null,
      created_at timestamptz not null default now(),
      deployed_at timestamptz,
      deploy_tx text,
      primary key (key_id, network, address)
    )`.execute(db);
  await sql`create index wallets_list_idx on wallets (key_id, created_at, address)`.execute(db);
  // The deployment watcher finds a wallet by its address on a network, whichever key made it.
  await sql`create index wallets_address_idx on wallets (network, address)`.execute(db);
}
