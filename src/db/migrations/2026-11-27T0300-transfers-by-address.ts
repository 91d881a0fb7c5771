import { type Kysely, sql } from 'kysely';

/**
 * The transfers API pages through one address's transfers in key order (block, place in block) with
 * the last key as a bound: an index per table and side, (network, address, the table's sort columns),
 * makes the first and the 50th page read the same few index entries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const sortColumns = {
    token_transfers: 'block_number, log_index',
    nft_transfers: 'block_number, log_index, batch_index',
    native_transfers: 'block_number, tx_hash',
    internal_transfers: 'block_number, tx_hash, trace_path',
  };
  for (const [table, columns] of Object.entries(sortColumns)) {
    for (const side of ['from', 'to']) {
      await sql.raw(`create index ${table}_${side}_idx on ${table} (network, ${side}_address, ${columns})`).execute(db);
    }
  }
}
