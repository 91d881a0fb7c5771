import { type Kysely, sql } from 'kysely';

/**
 * Every (holder, NFT collection) pair an indexed transfer touched, with the first block it was seen in:
 * what `token_holdings` is for tokens. `nft_ownership` keeps only what is held now, so a spam filter on
 * an address's transfers could not name a collection the address has since sent away or burned. A
 * reorg deletes the pairs first seen above its ancestor, as for tokens. Pairs of blocks indexed before
 * this release are derived here from the transfers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table nft_holder_collections (
      network text not null,
      holder text not null,
      contract text not null,
      first_block bigint not null,
      primary key (network, holder, contract)
    )`.execute(db);
  await sql`
    insert into nft_holder_collections (network, holder, contract, first_block)
    select network, holder, contract, min(block_number) from (
      select network, from_address as holder, contract, block_number from nft_transfers
      union all
      select network, to_address, contract, block_number from nft_transfers
    ) as touched
    where holder <> '0x0000000000000000000000000000000000000000'
    group by network, holder, contract`.execute(db);
}
