import { type Kysely, sql } from 'kysely';

/**
 * The chain index. Every row derived from a block carries `network` ('{chain}/{network}') and
 * `block_number`, so a reorg undoes it with one delete per table above the common ancestor.
 * Addresses and hashes are lower-case hex; uint256 values are numeric(78,0).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table index_blocks (
      network text not null,
      number bigint not null,
      hash text not null,
      parent_hash text not null,
      timestamp timestamptz not null,
      gas_used numeric(78,0) not null,
      tx_count integer not null,
      primary key (network, number)
    )`.execute(db);
  await sql`
    create table index_transactions (
      network text not null,
      hash text not null,
      block_number bigint not null,
      tx_index integer not null,
      from_address text not null,
      to_address text,
      value numeric(78,0) not null,
      status smallint not null,
      contract_created text,
      primary key (network, hash)
    )`.execute(db);
  await sql`create index index_transactions_block_idx on index_transactions (network, block_number)`.execute(db);
  await sql`create index index_transactions_from_idx on index_transactions (network, from_address, block_number)`.execute(db);
  await sql`create index index_transactions_to_idx on index_transactions (network, to_address, block_number)`.execute(db);

  await sql`
    create table token_transfers (
      network text not null,
      block_number bigint not null,
      log_index integer not null,
      tx_hash text not null,
      contract text not null,
      from_address text not null,
      to_address text not null,
      value numeric(78,0) not null,
      primary key (network, block_number, log_index)
    )`.execute(db);

  await sql`
    create table nft_transfers (
      network text not null,
      block_number bigint not null,
      log_index integer not null,
      batch_index integer not null,
      tx_hash text not null,
      contract text not null,
      standard text not null check (standard in ('ERC721', 'ERC1155')),
      operator text,
      from_address text not null,
      to_address text not null,
      token_id numeric(78,0) not null,
      amount numeric(78,0) not null,
      primary key (network, block_number, log_index, batch_index)
    )`.execute(db);

  await sql`
    create table native_transfers (
      network text not null,
      block_number bigint not null,
      tx_hash text not null,
      from_address text not null,
      to_address text not null,
      value numeric(78,0) not null,
      primary key (network, tx_hash)
    )`.execute(db);
  await sql`create index native_transfers_block_idx on native_transfers (network, block_number)`.execute(db);

  await sql`
    create table internal_transfers (
      network text not null,
      block_number bigint not null,
      tx_hash text not null,
      trace_path text not null,
      call_type text not null,
      from_address text not null,
      to_address text not null,
      value numeric(78,0) not null,
      primary key (network, tx_hash, trace_path)
    )`.execute(db);
  await sql`create index internal_transfers_block_idx on internal_transfers (network, block_number)`.execute(db);

  // Which tokens an address has ever touched: the balances API reads balanceOf for these pairs.
  await sql`
    create table token_holdings (
      network text not null,
      holder text not null,
      contract text not null,
      first_block bigint not null,
      primary key (network, holder, contract)
    )`.execute(db);

  // Current NFT owners, kept by applying transfers (and un-applying them on a reorg).
  await sql`
    create table nft_ownership (
      network text not null,
      contract text not null,
      token_id numeric(78,0) not null,
      owner text not null,
      standard text not null check (standard in ('ERC721', 'ERC1155')),
      amount numeric(78,0) not null,
      primary key (network, contract, token_id, owner)
    )`.execute(db);
  await sql`create index nft_ownership_owner_idx on nft_ownership (network, owner, contract, token_id)`.execute(db);
  // Transfers are applied as deltas; rows that reach zero are found through this small index and deleted.
  await sql`create index nft_ownership_empty_idx on nft_ownership (network) where amount <= 0`.execute(db);

  // Caches filled from the chain or the web, not derived from blocks: a reorg leaves them alone.
  await sql`
    create table token_metadata (
      network text not null,
      contract text not null,
      name text not null,
      symbol text not null,
      decimals integer not null,
      fetched_at timestamptz not null default now(),
      primary key (network, contract)
    )`.execute(db);
  await sql`
    create table nft_metadata (
      network text not null,
      contract text not null,
      token_id numeric(78,0) not null,
      token_uri text,
      name text,
      description text,
      image_url text,
      traits jsonb not null default '[]'::jsonb,
      metadata_error text,
      fetched_at timestamptz not null default now(),
      primary key (network, contract, token_id)
    )`.execute(db);

  // The chain event stream: `seq` orders it; writers hold an advisory lock so seq order is commit order.
  await sql`
    create table chain_events (
      seq bigserial primary key,
      network text not null,
      type text not null,
      block_number bigint not null,
      block_hash text not null,
      removed boolean not null default false,
      removes_seq bigint,
      data jsonb not null,
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index chain_events_block_idx on chain_events (network, block_number)`.execute(db);
  await sql`create index chain_events_removes_idx on chain_events (removes_seq) where removes_seq is not null`.execute(db);

  // Written by the indexer every few seconds, read by `blockyard index status` through any API node.
  await sql`
    create table index_progress (
      network text primary key,
      indexed_block bigint not null,
      head_block bigint not null,
      final_block bigint not null,
      blocks_per_second double precision not null,
      transfers_per_second double precision not null,
      updated_at timestamptz not null default now()
    )`.execute(db);
}
