import { type Kysely, sql } from 'kysely';

/**
 * NFT airdrops, by Alchemy's definition: a token minted to an address in a transaction another address
 * sent. The indexer writes one row per such mint beside the transfer (a reorg deletes it by block like
 * every row derived from a block); the AIRDROPS filter of the owner methods reads it through
 * (network, owner, contract, token) in the order the ownership index has. Rows for blocks indexed
 * before this release are derived here from the transfers and their transactions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table nft_airdrops (
      network text not null,
      block_number bigint not null,
      log_index integer not null,
      batch_index integer not null,
      owner text not null,
      contract text not null,
      token_id numeric(78,0) not null,
      primary key (network, block_number, log_index, batch_index)
    )`.execute(db);
  await sql`
    insert into nft_airdrops (network, block_number, log_index, batch_index, owner, contract, token_id)
    select t.network, t.block_number, t.log_index, t.batch_index, t.to_address, t.contract, t.token_id
    from nft_transfers t
    join index_transactions x on x.network = t.network and x.hash = t.tx_hash
    where t.from_address = '0x0000000000000000000000000000000000000000' and x.from_address <> t.to_address`.execute(db);
  await sql`create index nft_airdrops_owner_idx on nft_airdrops (network, owner, contract, token_id)`.execute(db);
}
