import { type Kysely, sql } from 'kysely';

/**
 * Where each network's index starts, remembered at its first start (a real network starts at the head
 * of that start, so a restart must not move it to a newer head), and the backfill jobs that fill the
 * blocks below it. An index that already holds blocks starts at its lowest one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table index_origins (
      network text primary key,
      first_block bigint not null,
      chosen_at timestamptz not null default now()
    )`.execute(db);
  await sql`
    insert into index_origins (network, first_block)
    select network, min(number) from index_blocks group by network`.execute(db);

  // One row per `blockyard index backfill`: the lease holder of the network works through from_block..to_block
  // in windows, each committed with next_block, so a restart resumes where the last window ended.
  await sql`
    create table index_backfills (
      id bigserial primary key,
      network text not null,
      from_block bigint not null,
      to_block bigint not null,
      next_block bigint not null,
      status text not null default 'pending' check (status in ('pending', 'running', 'done')),
      transfers bigint not null default 0,
      blocks_per_second double precision not null default 0,
      transfers_per_second double precision not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      finished_at timestamptz,
      check (from_block <= to_block and next_block between from_block and to_block + 1)
    )`.execute(db);
  await sql`create index index_backfills_open_idx on index_backfills (network, id) where status <> 'done'`.execute(db);

  // Ownership keeps negative sums now (src/indexer/store.ts, applyOwnership): only rows at exactly zero
  // are swept, and an index of `amount <= 0` would hold every negative row and grow with the chain.
  await sql`drop index nft_ownership_empty_idx`.execute(db);
  await sql`create index nft_ownership_zero_idx on nft_ownership (network) where amount = 0`.execute(db);
}
