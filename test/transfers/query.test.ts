import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransferCategory } from '../../src/transfers/categories.ts';
import { parseCategories } from '../../src/transfers/categories.ts';
import { decodePageKey, encodePageKey, type TransferCursor } from '../../src/transfers/page-key.ts';
import { queryTransfers, type TransferFilter, type TransferRow, transferFingerprint } from '../../src/transfers/query.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const network = 'ethereum/devnet';
const me = '0x00000000000000000000000000000000000000aa';
const other = '0x00000000000000000000000000000000000000bb';
const token = '0x00000000000000000000000000000000000000cc';
const nft = '0x00000000000000000000000000000000000000dd';
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * Every kind of tie the sort key must break, in three blocks: several native and internal transfers
 * (hashes out of insertion order, nested trace paths), token events, an ERC-1155 batch, a transfer to
 * oneself, and rows of another address and another network that must never appear.
 */
async function seed(db: TestDatabase['db']) {
  for (const number of [1, 2, 3]) {
    await db
      .insertInto('index_blocks')
      .values({
        network,
        number,
        hash: hash(1000 + number),
        parent_hash: hash(999 + number),
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, number * 12)),
        gas_used: 0,
        tx_count: 0,
      })
      .execute();
  }
  const native = (block: number, tx: number, from: string, to: string, value: number) => ({
    network,
    block_number: block,
    tx_hash: hash(tx),
    from_address: from,
    to_address: to,
    value,
  });
  await db
    .insertInto('native_transfers')
    .values([
      native(1, 0x30, me, other, 5),
      native(1, 0x10, other, me, 6),
      native(2, 0x20, me, me, 7),
      native(3, 0x50, other, other, 8),
      { ...native(1, 0x11, me, other, 9), network: 'ethereum/mainnet' },
    ])
    .execute();
  const internal = (block: number, tx: number, path: string, from: string, to: string, value: number) => ({
    network,
    block_number: block,
    tx_hash: hash(tx),
    trace_path: path,
    call_type: 'call',
    from_address: from,
    to_address: to,
    value,
  });
  await db
    .insertInto('internal_transfers')
    .values([
      internal(1, 0x30, '0.1', other, me, 11),
      internal(1, 0x30, '0', me, other, 12),
      internal(1, 0x30, '0.0.2', other, me, 13),
      internal(2, 0x20, '0', me, other, 0),
      internal(3, 0x60, '0', other, me, 14),
    ])
    .execute();
  const tokenRow = (block: number, log: number, tx: number, from: string, to: string, value: number) => ({
    network,
    block_number: block,
    log_index: log,
    tx_hash: hash(tx),
    contract: token,
    from_address: from,
    to_address: to,
    value,
  });
  await db
    .insertInto('token_transfers')
    .values([tokenRow(1, 4, 0x30, me, other, 100), tokenRow(1, 0, 0x10, other, me, 101), tokenRow(3, 2, 0x60, me, other, 102)])
    .execute();
  const nftRow = (
    block: number,
    log: number,
    batch: number,
    standard: 'ERC721' | 'ERC1155',
    from: string,
    to: string,
    id: number,
  ) => ({
    network,
    block_number: block,
    log_index: log,
    batch_index: batch,
    tx_hash: hash(0x30),
    contract: nft,
    standard,
    operator: null,
    from_address: from,
    to_address: to,
    token_id: id,
    amount: standard === 'ERC721' ? 1 : 10 + batch,
  });
  await db
    .insertInto('nft_transfers')
    .values([
      nftRow(1, 2, 0, 'ERC721', me, other, 7),
      nftRow(1, 3, 1, 'ERC1155', other, me, 2),
      nftRow(1, 3, 0, 'ERC1155', other, me, 1),
      nftRow(1, 3, 2, 'ERC1155', other, me, 3),
      nftRow(3, 0, 0, 'ERC721', other, other, 8),
    ])
    .execute();
}

const keyOf = (row: TransferRow) =>
  [row.blockNumber, row.cursor.position, row.txHash, row.cursor.tracePath, row.batchIndex] as const;
function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

describe('transfers query layer', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await seed(t.db);
  });
  afterAll(() => t?.close());

  const all: TransferCategory[] = ['native', 'internal', 'erc20', 'erc721', 'erc1155'];
  const everything = (filter: TransferFilter) => queryTransfers(t.db, filter, { limit: 1000 });

  async function pages(filter: TransferFilter, limit: number): Promise<TransferRow[][]> {
    const seen: TransferRow[][] = [];
    let after: TransferCursor | undefined;
    for (let i = 0; i < 100; i++) {
      const page = await queryTransfers(t.db, filter, { limit, after });
      seen.push(page.rows);
      if (!page.next) return seen;
      after = page.next;
    }
    throw new Error('more than 100 pages');
  }

  it('lists both sides of an address once each, in key order, nothing of other addresses or networks', async () => {
    const { rows, next } = await everything({ network, party: me, categories: all, order: 'asc' });
    expect(next).toBeUndefined();
    // 3 native (the one to itself once), 5 internal with `me`, 3 token, 4 NFT rows.
    expect(rows.map((r) => r.category).sort()).toEqual(
      [
        'native',
        'native',
        'native',
        'internal',
        'internal',
        'internal',
        'internal',
        'internal',
        'erc20',
        'erc20',
        'erc20',
        'erc721',
      ]
        .concat(['erc1155', 'erc1155', 'erc1155'])
        .sort(),
    );
    const keys = rows.map(keyOf);
    expect(keys).toEqual([...keys].sort(compareKeys));
    expect(new Set(keys.map((k) => k.join('/'))).size).toBe(rows.length);
    expect(rows.every((r) => r.from === me || r.to === me)).toBe(true);
    const first = rows[0]!;
    expect(first).toMatchObject({ category: 'native', txHash: hash(0x10), logIndex: null, value: '6', contract: null });
    expect(first.blockTimestamp.toISOString()).toBe('2026-01-01T00:00:12.000Z');
    const batch = rows.filter((r) => r.category === 'erc1155');
    expect(batch.map((r) => [r.batchIndex, r.tokenId, r.value])).toEqual([
      [0, '1', '10'],
      [1, '2', '11'],
      [2, '3', '12'],
    ]);
  });

  it.each([1, 2, 3, 5, 7])('pages of %i in both orders cover every row once, desc the reverse of asc', async (limit) => {
    const base: TransferFilter = { network, party: me, categories: all, order: 'asc' };
    const full = (await everything(base)).rows.map(keyOf);
    for (const order of ['asc', 'desc'] as const) {
      const seen = await pages({ ...base, order }, limit);
      expect(seen.slice(0, -1).every((page) => page.length === limit)).toBe(true);
      const keys = seen.flat().map(keyOf);
      expect(keys).toEqual(order === 'asc' ? full : [...full].reverse());
    }
  });

  it('filters by side, category, contract, block range and zero value', async () => {
    const base: TransferFilter = { network, categories: all, order: 'asc' };
    const sent = (await everything({ ...base, from: me })).rows;
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((r) => r.from === me)).toBe(true);
    const both = (await everything({ ...base, from: me, to: other })).rows;
    expect(both.every((r) => r.from === me && r.to === other)).toBe(true);
    const single = (await everything({ ...base, party: me, categories: ['erc1155'] })).rows;
    expect(single.map((r) => r.category)).toEqual(['erc1155', 'erc1155', 'erc1155']);
    const byContract = (await everything({ ...base, party: me, contracts: [token] })).rows;
    // Alchemy's rule: contracts filter token rows only; native and internal rows stay.
    expect(new Set(byContract.map((r) => r.contract))).toEqual(new Set([null, token]));
    const ranged = (await everything({ ...base, party: me, fromBlock: 2, toBlock: 2 })).rows;
    expect(ranged.map((r) => [r.category, r.blockNumber])).toEqual([
      ['native', 2],
      ['internal', 2],
    ]);
    const nonZero = (await everything({ ...base, party: me, fromBlock: 2, toBlock: 2, excludeZeroValue: true })).rows;
    expect(nonZero.map((r) => r.category)).toEqual(['native']);
    const none = await everything({ ...base, party: me, categories: [] });
    expect(none.rows).toEqual([]);
  });

  it('has the migration’s (network, address, sort columns) indexes on every transfers table', async () => {
    const { sql } = await import('kysely');
    for (const table of ['token_transfers', 'nft_transfers', 'native_transfers', 'internal_transfers']) {
      const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = ${table}`.execute(t.db);
      const names = indexes.rows.map((r) => r.indexname);
      expect(names).toEqual(expect.arrayContaining([`${table}_from_idx`, `${table}_to_idx`]));
    }
  });

  it('page keys round-trip, and refuse another query or a forged key', () => {
    const filter: TransferFilter = { network, party: me, categories: all, order: 'asc' };
    const fingerprint = transferFingerprint(filter);
    const cursor = { block: 3, position: -1, txHash: hash(0x60), tracePath: '0.2', batchIndex: 0 };
    expect(decodePageKey(encodePageKey(cursor, fingerprint), fingerprint)).toEqual(cursor);
    // The categories' order does not make another query; the order does.
    expect(transferFingerprint({ ...filter, categories: [...all].reverse() })).toBe(fingerprint);
    const other = transferFingerprint({ ...filter, order: 'desc' });
    expect(() => decodePageKey(encodePageKey(cursor, fingerprint), other)).toThrow(/page_key.*another query/);
    for (const forged of ['', 'abc', Buffer.from('[1,2]').toString('base64url'), '!!!!']) {
      expect(() => decodePageKey(forged, fingerprint)).toThrow(/page_key/);
    }
  });

  it('parses categories comma-separated and repeated, naming an unknown one', () => {
    expect(parseCategories(undefined)).toEqual(all);
    expect(parseCategories(['erc20,native', 'erc721', 'erc20'])).toEqual(['native', 'erc20', 'erc721']);
    expect(() => parseCategories(['erc20,erc777'])).toThrow("invalid parameter 'category': unknown category 'erc777'");
    expect(() => parseCategories(['erc20,'])).toThrow(/category/);
  });
});
