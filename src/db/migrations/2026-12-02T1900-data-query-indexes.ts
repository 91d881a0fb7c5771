import { type Kysely, sql } from 'kysely';

/**
 * Every filter the data APIs accept reads through an index (docs/limits.md#data-queries): a token's
 * transfers in key order without an address (alchemy_getAssetTransfers with contractAddresses only),
 * and a collection's holders in address order (getOwnersForContract), which otherwise sort every
 * row of the contract.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index token_transfers_contract_idx on token_transfers (network, contract, block_number, log_index)`.execute(
    db,
  );
  await sql`
    create index nft_transfers_contract_idx on nft_transfers (network, contract, block_number, log_index, batch_index)`.execute(
    db,
  );
  await sql`
    create index nft_ownership_holders_idx on nft_ownership (network, contract, owner, token_id) where amount > 0`.execute(db);
}
