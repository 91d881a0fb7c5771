import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // The op's other ERC-7562 entities, lower-case (null when it has none).
  await sql`alter table user_operations add column factory text, add column paymaster text`.execute(db);
  // ERC-7562 reputation of the entities (factories, paymasters) the bundler's ops use.
  await sql`
    create table bundler_reputation (
      network text not null,
      address text not null,
      ops_seen numeric(20, 0) not null default 0,
      ops_included numeric(20, 0) not null default 0,
      updated_at timestamptz not null default now(),
      primary key (network, address)
    )`.execute(db);
}
