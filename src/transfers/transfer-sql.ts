import { type RawBuilder, sql } from 'kysely';
import type { TransferCategory } from './categories.ts';
import { internalPosition, nativePosition, type TransferCursor } from './page-key.ts';

export type SortOrder = 'asc' | 'desc';

/** How one branch of the union picks its rows: already validated, lower-case values. */
export interface BranchFilter {
  readonly network: string;
  /** Address conditions of this branch (one branch per side of a `party` query). */
  readonly from?: string;
  readonly to?: string;
  readonly notFrom?: string;
  /** One contract read through the contract index (a branch per contract of a short list without an address). */
  readonly contract?: string;
  readonly contracts?: readonly string[];
  /** Contracts whose rows are left out (the spam filter). */
  readonly excludeContracts?: readonly string[];
  readonly fromBlock?: number;
  readonly toBlock?: number;
  readonly excludeZeroValue: boolean;
  readonly order: SortOrder;
  readonly after?: TransferCursor;
  readonly limit: number;
  /**
   * Index entries the branch may read at most when a condition is not part of the index it scans
   * (another filter than the leading address or contract): the scan stops there, and its last row is
   * returned marked `boundary`, so the page can end at it with a page key instead of scanning on.
   */
  readonly scanBudget: number;
}

/** A transfers table as a branch of the union: its columns under the common names, its keyset. */
interface TableShape {
  readonly table: string;
  readonly columns: RawBuilder<unknown>;
  /** The table's own sort columns, in the order of the common key. */
  readonly sortColumns: readonly string[];
  readonly valueColumn: string;
  readonly hasContract: boolean;
  readonly afterCondition: (cursor: TransferCursor, order: SortOrder) => RawBuilder<unknown>;
}

const cmp = (order: SortOrder, strict: boolean) => sql.raw(order === 'asc' ? (strict ? '>' : '>=') : strict ? '<' : '<=');

/** Log-based tables: the log index is the position, unique in its block, so (block, log index[, batch]) is the key. */
function afterLog(withBatch: boolean) {
  return (c: TransferCursor, order: SortOrder) =>
    withBatch
      ? sql`(block_number, log_index, batch_index) ${cmp(order, true)} (${c.block}::int8, ${c.position}::int4, ${c.batchIndex}::int4)`
      : sql`(block_number, log_index) ${cmp(order, true)} (${c.block}::int8, ${c.position}::int4)`;
}

/**
 * Tables whose rows all sit at one position of their block: past a cursor at that position the key goes
 * on with the hash (and trace path); past a cursor elsewhere in the block, the whole block is in or out.
 */
function afterFixed(position: number, withPath: boolean) {
  return (c: TransferCursor, order: SortOrder) => {
    if (c.position === position) {
      return withPath
        ? sql`(block_number, tx_hash, trace_path) ${cmp(order, true)} (${c.block}::int8, ${c.txHash}::text, ${c.tracePath}::text)`
        : sql`(block_number, tx_hash) ${cmp(order, true)} (${c.block}::int8, ${c.txHash}::text)`;
    }
    // The cursor sorts after this table's rows of its block (asc: they are behind us) or before them.
    const cursorAfterRows = c.position > position;
    const strict = order === 'asc' ? cursorAfterRows : !cursorAfterRows;
    return sql`block_number ${cmp(order, strict)} ${c.block}::int8`;
  };
}

const tables: Record<'token' | 'nft' | 'native' | 'internal', TableShape> = {
  token: {
    table: 'token_transfers',
    columns: sql`'erc20'::text as category, block_number, log_index as position, tx_hash, ''::text as trace_path,
      0 as batch_index, from_address, to_address, contract, value, null::numeric as token_id`,
    sortColumns: ['block_number', 'log_index'],
    valueColumn: 'value',
    hasContract: true,
    afterCondition: afterLog(false),
  },
  nft: {
    table: 'nft_transfers',
    columns: sql`case standard when 'ERC721' then 'erc721' else 'erc1155' end as category, block_number,
      log_index as position, tx_hash, ''::text as trace_path, batch_index, from_address, to_address, contract,
      amount as value, token_id`,
    sortColumns: ['block_number', 'log_index', 'batch_index'],
    valueColumn: 'amount',
    hasContract: true,
    afterCondition: afterLog(true),
  },
  native: {
    table: 'native_transfers',
    columns: sql`'native'::text as category, block_number, ${sql.lit(nativePosition)}::int4 as position, tx_hash,
      ''::text as trace_path, 0 as batch_index, from_address, to_address, null::text as contract, value,
      null::numeric as token_id`,
    sortColumns: ['block_number', 'tx_hash'],
    valueColumn: 'value',
    hasContract: false,
    afterCondition: afterFixed(nativePosition, false),
  },
  internal: {
    table: 'internal_transfers',
    columns: sql`'internal'::text as category, block_number, ${sql.lit(internalPosition)}::int4 as position, tx_hash,
      trace_path, 0 as batch_index, from_address, to_address, null::text as contract, value, null::numeric as token_id`,
    sortColumns: ['block_number', 'tx_hash', 'trace_path'],
    valueColumn: 'value',
    hasContract: false,
    afterCondition: afterFixed(internalPosition, true),
  },
};

/** The tables (and, for nft_transfers, the standards) the categories read. */
export function tablesFor(categories: readonly TransferCategory[]) {
  const wanted = new Set(categories);
  const standards = (['erc721', 'erc1155'] as const).filter((c) => wanted.has(c)).map((c) => c.toUpperCase());
  return [
    ...(wanted.has('native') ? [{ shape: tables.native, standards: undefined }] : []),
    ...(wanted.has('internal') ? [{ shape: tables.internal, standards: undefined }] : []),
    ...(wanted.has('erc20') ? [{ shape: tables.token, standards: undefined }] : []),
    ...(standards.length > 0 ? [{ shape: tables.nft, standards: standards.length === 2 ? undefined : standards }] : []),
  ];
}

/**
 * One branch of the union: a table's rows for one address (or contract) condition, in key order, at
 * most `limit`. The leading condition and the block bounds are an index range (network, address or
 * contract, sort columns), so the cursor is a bound of the index scan, not an OFFSET. The other filters
 * (the other side, contracts with an address, standards, zero values) are checked on rows the scan
 * reads; their scan is cut at `scanBudget` rows, whose last comes back with `boundary` set (matching or
 * not), so a filter that matches rarely costs a bounded read and a short page, never a long scan.
 */
export function branchSql(shape: TableShape, standards: readonly string[] | undefined, f: BranchFilter): RawBuilder<unknown> {
  const leading: RawBuilder<unknown>[] = [sql`network = ${f.network}`];
  const residual: RawBuilder<unknown>[] = [];
  const lead = f.from !== undefined ? 'from' : f.to !== undefined ? 'to' : f.contract !== undefined ? 'contract' : 'block';
  if (f.from !== undefined) leading.push(sql`from_address = ${f.from}`);
  if (f.to !== undefined) (lead === 'to' ? leading : residual).push(sql`to_address = ${f.to}`);
  if (f.contract !== undefined) (lead === 'contract' ? leading : residual).push(sql`contract = ${f.contract}`);
  if (f.fromBlock !== undefined) leading.push(sql`block_number >= ${f.fromBlock}::int8`);
  if (f.toBlock !== undefined) leading.push(sql`block_number <= ${f.toBlock}::int8`);
  if (f.after !== undefined) leading.push(shape.afterCondition(f.after, f.order));
  if (f.notFrom !== undefined) residual.push(sql`from_address <> ${f.notFrom}`);
  if (standards !== undefined) residual.push(sql`standard in (${sql.join(standards)})`);
  if (f.contracts !== undefined && shape.hasContract) residual.push(sql`contract in (${sql.join(f.contracts)})`);
  if (f.excludeContracts !== undefined && shape.hasContract)
    residual.push(sql`contract not in (${sql.join(f.excludeContracts)})`);
  if (f.excludeZeroValue) residual.push(sql`${sql.ref(shape.valueColumn)} <> 0`);
  const direction = sql.raw(f.order);
  const orderBy = sql.join(shape.sortColumns.map((column) => sql`${sql.ref(column)} ${direction}`));
  const where = sql.join(leading, sql` and `);
  if (residual.length === 0) {
    return sql`(select ${shape.columns}, true as matched, false as boundary from ${sql.table(shape.table)}
      where ${where} order by ${orderBy} limit ${f.limit})`;
  }
  // row_number() in the scan's own order (which the index gives, so no sort): the budget's last row is
  // the one numbered `scanBudget`, and the planner knows the rows stay in key order, so the branch's
  // LIMIT stops the scan at its last match instead of sorting the whole budget first.
  return sql`(select ${shape.columns}, matched, n = ${f.scanBudget} as boundary from (
      select *, coalesce(${sql.join(residual, sql` and `)}, false) as matched from (
        select *, row_number() over (order by ${orderBy}) as n from (
          select * from ${sql.table(shape.table)} where ${where} order by ${orderBy} limit ${f.scanBudget}
        ) budget
      ) numbered
    ) scanned
    where matched or n = ${f.scanBudget}
    order by ${orderBy} limit ${f.limit + 1})`;
}
