import { sql } from 'kysely';
import type { Database } from '../db/connect.ts';
import { preparedComment } from '../db/prepared-statements.ts';
import type { TransferCategory } from './categories.ts';
import { fingerprintOf, type TransferCursor } from './page-key.ts';
import { type BranchFilter, branchSql, type SortOrder, tablesFor } from './transfer-sql.ts';

/**
 * Which transfers to read, already validated: lower-case addresses, '{chain}/{network}'. The query layer
 * of both `GET /v1/transfers` and `alchemy_getAssetTransfers`.
 */
export interface TransferFilter {
  readonly network: string;
  /** Sent or received by this address (a transfer to itself comes once). Not together with `from`/`to`. */
  readonly party?: string;
  /** Sent by this address; with `to` too, both must hold. */
  readonly from?: string;
  /** Received by this address. */
  readonly to?: string;
  readonly categories: readonly TransferCategory[];
  /** Token contracts (ERC-20/721/1155 rows only; native and internal rows are not filtered by it, as Alchemy does). */
  readonly contracts?: readonly string[];
  /** Inclusive block bounds. */
  readonly fromBlock?: number;
  readonly toBlock?: number;
  readonly order: SortOrder;
  /** Leaves out transfers of value (ERC-1155: amount) 0. */
  readonly excludeZeroValue?: boolean;
  /** The spam filter was asked for (part of the page key's fingerprint). */
  readonly excludeSpam?: boolean;
  /** Token contracts left out (the spam filter's verdicts; native and internal rows have none). */
  readonly excludeContracts?: readonly string[];
}

export interface TransferRow {
  readonly category: TransferCategory;
  readonly blockNumber: number;
  readonly blockTimestamp: Date;
  readonly txHash: string;
  /** Null for native and internal transfers. */
  readonly logIndex: number | null;
  /** ERC-1155 TransferBatch: the place in the batch; 0 otherwise. */
  readonly batchIndex: number;
  /** Internal transfers: the call's place in the call tree ('0.2.1'); null otherwise. */
  readonly tracePath: string | null;
  readonly from: string;
  readonly to: string;
  readonly contract: string | null;
  /** Decimal base units; for NFTs the amount (1 for ERC-721). */
  readonly value: string;
  readonly tokenId: string | null;
  /** From the token metadata the service has read (ERC-20 only); null when unknown. */
  readonly symbol: string | null;
  readonly decimals: number | null;
  readonly cursor: TransferCursor;
}

export interface TransferPage {
  readonly rows: TransferRow[];
  /** The last row's key when more rows follow; absent on the last page. */
  readonly next?: TransferCursor;
  /**
   * The page ended where a branch's scan budget did (`next` is the last row read, matching or not):
   * rows may follow, but reading on is the next page's work, not this one's.
   */
  readonly budgetSpent?: boolean;
}

/** Most rows one call returns (Alchemy's maxCount allows 1,000). */
export const maxTransferLimit = 1000;

/**
 * Rows one branch reads at most while a filter outside its index (contracts beside an address, the
 * other side, zero values, NFT standards) leaves rows out: about 10 ms of reading. A filter that
 * matches rarely then answers a short page with a page key instead of scanning the table.
 */
export const transferScanBudget = 2_000;

/** Contracts without an address are read a branch per contract (the contract index) up to this many; beyond, in block order, filtered. */
export const maxContractBranches = 10;

/** Ties a page key to the filter it was made for (everything but the page size). */
export function transferFingerprint(filter: TransferFilter): string {
  const { network, party, from, to, categories, contracts, fromBlock, toBlock, order, excludeZeroValue, excludeSpam } = filter;
  return fingerprintOf([
    network,
    party ?? null,
    from ?? null,
    to ?? null,
    [...categories].sort(),
    contracts ? [...contracts].sort() : null,
    fromBlock ?? null,
    toBlock ?? null,
    order,
    excludeZeroValue ?? false,
    ...(excludeSpam ? ['exclude_spam'] : []),
  ]);
}

interface Row {
  category: TransferCategory;
  block_number: string;
  position: number;
  tx_hash: string;
  trace_path: string;
  batch_index: number;
  from_address: string;
  to_address: string;
  contract: string | null;
  value: string;
  token_id: string | null;
  timestamp: Date | string;
  symbol: string | null;
  decimals: number | null;
  matched: boolean;
  boundary: boolean;
}

const transfersPageMark = sql.raw(preparedComment('transfers_page'));

/**
 * One page of transfers in key order (block, place in block), read from the index's four transfer
 * tables in one statement: a snapshot, so a reorg's rollback is seen whole or not at all.
 * @example
 * const page = await queryTransfers(db, { network: 'ethereum/mainnet', party: addr, categories: ['erc20'], order: 'desc' }, { limit: 50 });
 */
export async function queryTransfers(
  db: Database,
  filter: TransferFilter,
  page: { limit: number; after?: TransferCursor },
): Promise<TransferPage> {
  const limit = Math.min(Math.max(1, Math.trunc(page.limit)), maxTransferLimit);
  const tables = tablesFor(filter.categories);
  if (tables.length === 0 || (filter.contracts !== undefined && filter.contracts.length === 0)) return { rows: [] };
  const branches = tables.flatMap(({ shape, standards }) =>
    branchConditions(filter, shape.hasContract).map((conditions) =>
      branchSql(shape, standards, branchFilter(filter, conditions, page.after, limit + 1)),
    ),
  );
  const direction = sql.raw(filter.order);
  // Lateral lookups (LIMIT keeps the planner from flattening them into a join over all the network's
  // blocks): one primary-key probe per row of the page. Each branch adds at most one boundary row.
  // Prepared: parsing and planning the union took 1-2 ms of the server's CPU per call, its run 0.1-0.2
  // (a batch of 50 calls runs 50 of them). Every value is a parameter, so there is one text per shape.
  const result = await sql<Row>`${transfersPageMark}
    with page as (
      select * from (${sql.join(branches, sql` union all `)}) u
      order by block_number ${direction}, position ${direction}, tx_hash ${direction}, trace_path ${direction}, batch_index ${direction}
      limit ${limit + 1 + branches.length}
    )
    select page.*, b.timestamp, m.symbol, m.decimals
    from page
    cross join lateral (
      select timestamp from index_blocks where network = ${filter.network} and number = page.block_number limit 1
    ) b
    left join lateral (
      select symbol, decimals from token_metadata
      where page.category = 'erc20' and network = ${filter.network} and contract = page.contract limit 1
    ) m on true
    order by page.block_number ${direction}, page.position ${direction}, page.tx_hash ${direction}, page.trace_path ${direction}, page.batch_index ${direction}`.execute(
    db,
  );
  return pageOf(result.rows, limit);
}

/**
 * The first `limit` matching rows, unless a branch's budget ended before them: rows past that
 * boundary may miss that branch's matches, so the page ends at the boundary, its key the next page's.
 */
function pageOf(rows: readonly Row[], limit: number): TransferPage {
  const taken: TransferRow[] = [];
  for (const row of rows) {
    const matches = row.matched;
    if (matches && taken.length === limit) return { rows: taken, next: taken.at(-1)!.cursor };
    const transfer = toTransferRow(row);
    if (matches) taken.push(transfer);
    if (row.boundary) return { rows: taken, next: transfer.cursor, budgetSpent: true };
  }
  return { rows: taken };
}

type Conditions = Pick<BranchFilter, 'from' | 'to' | 'notFrom' | 'contract' | 'contracts'>;

/**
 * The branches of one table: a side each of a `party` query, one for `from`/`to`, else one per
 * contract of a short list (the contract index), else one in block order.
 */
function branchConditions(filter: TransferFilter, hasContract: boolean): Conditions[] {
  const contracts = hasContract ? filter.contracts : undefined;
  if (filter.party !== undefined) {
    return [
      { from: filter.party, contracts },
      { to: filter.party, notFrom: filter.party, contracts },
    ];
  }
  if (filter.from !== undefined || filter.to !== undefined) return [{ from: filter.from, to: filter.to, contracts }];
  if (contracts !== undefined && contracts.length <= maxContractBranches) return contracts.map((contract) => ({ contract }));
  return [{ contracts }];
}

function branchFilter(
  filter: TransferFilter,
  conditions: Conditions,
  after: TransferCursor | undefined,
  limit: number,
): BranchFilter {
  return {
    network: filter.network,
    ...conditions,
    fromBlock: filter.fromBlock,
    toBlock: filter.toBlock,
    excludeZeroValue: filter.excludeZeroValue ?? false,
    ...(filter.excludeContracts?.length ? { excludeContracts: filter.excludeContracts } : {}),
    order: filter.order,
    after,
    limit,
    scanBudget: transferScanBudget,
  };
}

function toTransferRow(row: Row): TransferRow {
  const isLog = row.position >= 0;
  const cursor: TransferCursor = {
    block: Number(row.block_number),
    position: row.position,
    txHash: row.tx_hash,
    tracePath: row.trace_path,
    batchIndex: row.batch_index,
  };
  return {
    category: row.category,
    blockNumber: Number(row.block_number),
    blockTimestamp: new Date(row.timestamp),
    txHash: row.tx_hash,
    logIndex: isLog ? row.position : null,
    batchIndex: row.batch_index,
    tracePath: row.category === 'internal' ? row.trace_path : null,
    from: row.from_address,
    to: row.to_address,
    contract: row.contract,
    value: row.value,
    tokenId: row.token_id,
    symbol: row.symbol,
    decimals: row.decimals,
    cursor,
  };
}
