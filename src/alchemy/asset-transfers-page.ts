import type { Database } from '../db/connect.ts';
import type { TransferCursor } from '../transfers/page-key.ts';
import { queryTransfers, type TransferFilter, type TransferRow } from '../transfers/query.ts';

/** One Alchemy item: a transfer, or every transfer of one ERC-1155 TransferBatch log (its `erc1155Metadata`). */
export type TransferGroup = readonly TransferRow[];

export interface AssetTransfersPage {
  readonly groups: TransferGroup[];
  /** The last row's key when more transfers follow. */
  readonly next?: TransferCursor;
}

/** Rows read per query while finishing a batch the page ended inside (a TransferBatch rarely moves more ids). */
const batchRowsPerRead = 200;
/** Queries for one page at most: a page of 1,000 items needs one, plus one per batch met and one to finish the last. */
const maxReads = 100;

/**
 * Up to `maxCount` items in key order from `after` on. The query layer lists an ERC-1155 TransferBatch
 * as one row per id, and Alchemy as one item: rows of one log are grouped; while batches leave the
 * page short of `maxCount` items more rows are read, and a page whose last row sits inside a batch
 * reads the rest of that batch, so a batch is never split across pages.
 */
export async function readAssetTransfers(
  db: Database,
  filter: TransferFilter,
  maxCount: number,
  after: TransferCursor | undefined,
): Promise<AssetTransfersPage> {
  const rows: TransferRow[] = [];
  let items = 0;
  let next = after;
  for (let reads = 0; reads < maxReads; reads++) {
    const wanted = maxCount - items;
    const last = rows.at(-1);
    if (wanted === 0 && last?.category !== 'erc1155') break;
    // Each row read is at most one more item: reading `wanted` rows never overshoots the page.
    const page = await queryTransfers(db, filter, { limit: wanted > 0 ? wanted : batchRowsPerRead, after: next });
    if (wanted === 0) {
      const otherLog = page.rows.findIndex((row) => !isSameLog(row, last!));
      const taken = otherLog === -1 ? page.rows : page.rows.slice(0, otherLog);
      rows.push(...taken);
      if (otherLog === -1) next = page.next;
      else if (taken.length > 0) next = taken.at(-1)!.cursor;
      if (otherLog !== -1 || next === undefined || page.budgetSpent) break;
      continue;
    }
    for (const row of page.rows) {
      if (!(rows.length > 0 && isSameLog(row, rows.at(-1)!))) items++;
      rows.push(row);
    }
    next = page.next;
    // A scan budget spent: the page ends short, with the key to read on from (bounded work per call).
    if (next === undefined || page.budgetSpent) break;
  }
  return { groups: groupByLog(rows), ...(next === undefined ? {} : { next }) };
}

function isSameLog(row: TransferRow, other: TransferRow): boolean {
  return (
    row.category === 'erc1155' &&
    other.category === 'erc1155' &&
    row.txHash === other.txHash &&
    row.logIndex === other.logIndex &&
    row.blockNumber === other.blockNumber
  );
}

/** Consecutive rows of one ERC-1155 log become one group, in batch order whatever the page order. */
function groupByLog(rows: readonly TransferRow[]): TransferGroup[] {
  const groups: TransferRow[][] = [];
  for (const row of rows) {
    const current = groups.at(-1);
    if (current !== undefined && isSameLog(row, current[0]!)) current.push(row);
    else groups.push([row]);
  }
  for (const group of groups) if (group.length > 1) group.sort((a, b) => a.batchIndex - b.batchIndex);
  return groups;
}
