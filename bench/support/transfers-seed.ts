// What bench/transfers.ts puts in the service's database: one address with many transfers of every
// category, spread over the indexed blocks, among transfers of other addresses, written straight into
// the index's tables (as the indexer would, without a chain to replay).
import pg from 'pg';

export interface TransferSeed {
  /** The address with `total` transfers. */
  address: string;
  total: number;
  /** Transfers of other addresses beside them. */
  noise: number;
  /** The indexed blocks the rows are spread over (1..blocks). */
  blocks: number;
  network: string;
}

/** Share of each category in the address's transfers: ERC-20 the most, as on a real chain. */
const shares = { erc20: 0.4, native: 0.2, internal: 0.15, erc721: 0.15, erc1155: 0.1 };

export const seededToken = '0x00000000000000000000000000000000000c0de1';
const seededNft = '0x00000000000000000000000000000000000c0de2';
const counterparty = '0x00000000000000000000000000000000000f00d5';

/** Seeds the rows in one transaction, then ANALYZE (as autovacuum would soon), and returns how long it took. */
export async function seedTransfers(url: string, seed: TransferSeed): Promise<number> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query('begin');
    const counts = Object.fromEntries(
      Object.entries(shares).map(([category, share]) => [category, Math.round(seed.total * share)]),
    );
    // i runs 1..n; its block rises with it, sides alternate, hashes are unique per table (the tag).
    const block = (n: number) => `1 + ((i - 1) * ${seed.blocks}) / ${n}`;
    const hash = (tag: number) => `'0x' || lpad(to_hex(${tag}::int8 * 4294967296 + i), 64, '0')`;
    const from = `case when i % 2 = 0 then $2 else $3 end`;
    const to = `case when i % 2 = 0 then $3 else $2 end`;
    const params = (n: number) => [n, seed.address, counterparty, seed.network];
    await client.query(
      `insert into token_transfers (network, block_number, log_index, tx_hash, contract, from_address, to_address, value)
       select $4, ${block(counts.erc20!)}, 100000 + i, ${hash(1)}, '${seededToken}', ${from}, ${to}, i * 1000
       from generate_series(1, $1::int) i`,
      params(counts.erc20!),
    );
    await client.query(
      `insert into native_transfers (network, block_number, tx_hash, from_address, to_address, value)
       select $4, ${block(counts.native!)}, ${hash(2)}, ${from}, ${to}, i::numeric * 1000000000
       from generate_series(1, $1::int) i`,
      params(counts.native!),
    );
    await client.query(
      `insert into internal_transfers (network, block_number, tx_hash, trace_path, call_type, from_address, to_address, value)
       select $4, ${block(counts.internal!)}, ${hash(3)}, '0.' || (i % 3), 'call', ${from}, ${to}, i
       from generate_series(1, $1::int) i`,
      params(counts.internal!),
    );
    const nfts = counts.erc721! + counts.erc1155!;
    await client.query(
      `insert into nft_transfers (network, block_number, log_index, batch_index, tx_hash, contract, standard, operator,
         from_address, to_address, token_id, amount)
       select $4, ${block(nfts)}, 300000 + i, 0, ${hash(4)}, '${seededNft}',
         case when i <= ${counts.erc721} then 'ERC721' else 'ERC1155' end, null, ${from}, ${to}, i,
         case when i <= ${counts.erc721} then 1 else 5 end
       from generate_series(1, $1::int) i`,
      params(nfts),
    );
    // Other addresses' transfers in the same blocks (half ERC-20, half native): the indexes hold more
    // than the measured address, and the planner must pick the address's index to skip them.
    const otherAddress = (offset: number) => `'0x' || lpad(to_hex(i + ${offset}), 40, '0')`;
    const half = Math.round(seed.noise / 2);
    await client.query(
      `insert into token_transfers (network, block_number, log_index, tx_hash, contract, from_address, to_address, value)
       select $2, 1 + ((i - 1) * ${seed.blocks}) / $1, 600000 + i, ${hash(5)}, '${seededToken}', ${otherAddress(0)}, ${otherAddress(1)}, i
       from generate_series(1, $1::int) i`,
      [half, seed.network],
    );
    await client.query(
      `insert into native_transfers (network, block_number, tx_hash, from_address, to_address, value)
       select $2, 1 + ((i - 1) * ${seed.blocks}) / $1, ${hash(6)}, ${otherAddress(0)}, ${otherAddress(1)}, i
       from generate_series(1, $1::int) i`,
      [seed.noise - half, seed.network],
    );
    await client.query(
      `insert into token_metadata (network, contract, name, symbol, decimals) values ($1, $2, 'Seeded', 'SEED', 18)
       on conflict do nothing`,
      [seed.network, seededToken],
    );
    await client.query('commit');
    await client.query('analyze token_transfers, nft_transfers, native_transfers, internal_transfers');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
  return performance.now() - started;
}

/** The newest indexed block of the network (-1 when none). */
export async function indexedHead(url: string, network: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rows } = await client.query<{ head: string | null }>(
      'select max(number) as head from index_blocks where network = $1',
      [network],
    );
    return rows[0]?.head === null || rows[0]?.head === undefined ? -1 : Number(rows[0].head);
  } finally {
    await client.end();
  }
}

/** Waits until the indexer has recorded `block` of the network (polling index_blocks), at most `timeoutMs`. */
export async function waitForIndex(url: string, network: string, block: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await indexedHead(url, network)) < block) {
    if (Date.now() > deadline) throw new Error(`the indexer did not reach block ${block} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
