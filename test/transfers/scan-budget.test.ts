import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransferCursor } from '../../src/transfers/page-key.ts';
import { queryTransfers, type TransferFilter, transferScanBudget } from '../../src/transfers/query.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const network = 'ethereum/devnet';
const busy = '0x00000000000000000000000000000000000000aa';
const other = '0x00000000000000000000000000000000000000bb';
const common = '0x00000000000000000000000000000000000000c1';
const rare = '0x00000000000000000000000000000000000000c2';
const blocks = 50;
/** Transfers of the common token by `busy`: several budgets' worth, so a rare filter must page through them. */
const commonRows = transferScanBudget * 3;
/** Where the rare token's transfers sit (block, log index): spread so several budgets end between them. */
const rareAt = [
  [2, 900_001],
  [20, 900_002],
  [20, 900_003],
  [35, 900_004],
  [49, 900_005],
] as const;

/** Every page of the filter, following `next`, with what each returned. */
async function allPages(db: TestDatabase['db'], filter: TransferFilter, limit: number) {
  const pages: { rows: number; budgetSpent: boolean }[] = [];
  const keys: string[] = [];
  let after: TransferCursor | undefined;
  for (let n = 0; n < 100; n++) {
    const page = await queryTransfers(db, filter, { limit, after });
    pages.push({ rows: page.rows.length, budgetSpent: page.budgetSpent ?? false });
    keys.push(...page.rows.map((row) => `${row.blockNumber}/${row.logIndex}/${row.contract}`));
    if (page.next === undefined) return { pages, keys };
    after = page.next;
  }
  throw new Error('more than 100 pages');
}

describe('transfer queries read a bounded number of rows whatever the filter (issue 35 item 1)', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await sql`
      insert into index_blocks (network, number, hash, parent_hash, timestamp, gas_used, tx_count)
      select ${network}, n, '0x' || lpad(to_hex(n), 64, '0'), '0x' || lpad(to_hex(n - 1), 64, '0'),
        timestamp '2026-01-01' + n * interval '12 seconds', 0, 0
      from generate_series(1, ${blocks}) n`.execute(t.db);
    // The busy address sends the common token in every block; a few of its transfers are of the rare one.
    await sql`
      insert into token_transfers (network, block_number, log_index, tx_hash, contract, from_address, to_address, value)
      select ${network}, 1 + (i * ${blocks - 1}) / ${commonRows}, i, '0x' || lpad(to_hex(i), 64, '0'), ${common}, ${busy}, ${other}, i
      from generate_series(1, ${commonRows}) i`.execute(t.db);
    for (const [block, log] of rareAt) {
      await sql`
        insert into token_transfers (network, block_number, log_index, tx_hash, contract, from_address, to_address, value)
        values (${network}, ${block}, ${log}, ${`0x${log.toString(16).padStart(64, '0')}`}, ${rare}, ${busy}, ${other}, 7)`.execute(
        t.db,
      );
    }
    await sql`analyze token_transfers`.execute(t.db);
  });
  afterAll(() => t?.close());

  const base = { network, categories: ['erc20'], excludeZeroValue: true } as const;

  it('an address with a rare contract: short pages ending at the budget, every match exactly once, in both orders', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const { pages, keys } = await allPages(t.db, { ...base, from: busy, contracts: [rare], order }, 100);
      const expected = rareAt.map(([block, log]) => `${block}/${log}/${rare}`);
      expect(keys).toEqual(order === 'asc' ? expected : expected.reverse());
      // The budget cut the scan: more than one page, each short of the limit, all but the last flagged.
      expect(pages.length).toBeGreaterThan(2);
      expect(pages.slice(0, -1).every((page) => page.budgetSpent)).toBe(true);
    }
  });

  it('the same through a party query (two sides) and with a page size that fills before the budget ends', async () => {
    const { keys } = await allPages(t.db, { ...base, party: busy, contracts: [rare], order: 'asc' }, 2);
    expect(keys).toEqual(rareAt.map(([block, log]) => `${block}/${log}/${rare}`));
    const common1 = await queryTransfers(t.db, { ...base, from: busy, contracts: [common], order: 'asc' }, { limit: 50 });
    expect(common1.rows).toHaveLength(50);
    expect(common1.budgetSpent).toBeUndefined();
  });

  it('a contract without an address reads its own index: the rare one in a single page', async () => {
    const page = await queryTransfers(t.db, { ...base, contracts: [rare], order: 'desc' }, { limit: 10 });
    expect(page.rows.map((row) => row.blockNumber)).toEqual([49, 35, 20, 20, 2]);
    expect(page.next).toBeUndefined();
    const plan = await sql<{ 'QUERY PLAN': string }>`
      explain select * from token_transfers where network = ${network} and contract = ${rare}
      order by block_number, log_index limit 10`.execute(t.db);
    expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).toMatch(/token_transfers_contract_idx/);
  });

  it('more contracts than get a branch each are read in block order under the budget, and still all found', async () => {
    const decoys = Array.from({ length: 12 }, (_, i) => `0x${(0xd0 + i).toString(16).padStart(40, '0')}`);
    const { pages, keys } = await allPages(t.db, { ...base, contracts: [...decoys, rare], order: 'asc' }, 100);
    expect(keys).toEqual(rareAt.map(([block, log]) => `${block}/${log}/${rare}`));
    expect(pages.some((page) => page.budgetSpent)).toBe(true);
  });
});
