import { type Kysely, sql } from 'kysely';

/**
 * When each holding was last acquired: the newest block of a transfer that brought the holder units
 * of the token (null for a row no such transfer is indexed for). getNFTsForOwner's
 * `orderBy=transferTime` reads the held tokens newest first through the partial index. The indexer
 * keeps it as the greatest block it applies (order-independent, as the amounts are) and reads it
 * again from the transfers left after a reorg. Existing rows are filled from the indexed transfers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table nft_ownership add column acquired_block bigint`.execute(db);
  await sql`
    update nft_ownership o set acquired_block = a.block
    from (
      select network, to_address, contract, token_id, max(block_number) as block
      from nft_transfers group by network, to_address, contract, token_id
    ) a
    where a.network = o.network and a.to_address = o.owner and a.contract = o.contract and a.token_id = o.token_id`.execute(db);
  await sql`
    create index nft_ownership_acquired_idx on nft_ownership (network, owner, acquired_block desc nulls last, contract, token_id)
    where amount > 0`.execute(db);
}
