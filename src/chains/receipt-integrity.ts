import {
  asRecord,
  differs,
  type IntegrityProblem,
  isProblem,
  optionalHash,
  optionalQuantity,
  problem,
  requiredHash,
  requiredQuantity,
  show,
} from './integrity-fields.ts';

/*
 * Receipts and logs checked against the block and the transaction they claim (for the indexer's
 * bundles in block-integrity.ts and the cache's answers in answer-integrity.ts). Which fields must be
 * present follows ethereum/execution-apis, src/schemas/receipt.yaml: ReceiptInfo requires
 * transactionHash, transactionIndex, blockHash, blockNumber and logs, so one absent is `malformed`;
 * Log requires only transactionHash (a pending log has no block fields nor logIndex), so a log field
 * that is absent is not checked, and one that is present must match. Hashes compare
 * case-insensitively, quantities by value. The logs bloom is not checked: that means hashing every
 * log of the block, far from cheap.
 */

/** What a receipt must agree with; an undefined member is not checked. */
export interface ReceiptExpectation {
  blockNumber?: number | undefined;
  blockHash?: string | undefined;
  transactionHash?: string | undefined;
  transactionIndex?: number | undefined;
}

/** Where the next log of the block must sit; `next` undefined: the first log seen sets it (a lone receipt). */
export interface LogCursor {
  next: number | undefined;
}

/**
 * A block's receipts in order: receipt i is transaction i's (`txHashes`, when known), every one
 * claims the block, and the logs sit at positions 0, 1, 2... across the whole block: logIndex is the
 * log's position in the block (geth: execution-apis' fixture tests/eth_getBlockReceipts/
 * get-block-receipts-latest.io, where transaction 3's one log is 0xa; anvil: the unit test's blocks).
 */
export function checkReceipts(
  receipts: readonly unknown[],
  block: { blockNumber?: number | undefined; blockHash?: string | undefined },
  txHashes?: readonly string[],
): IntegrityProblem | undefined {
  const cursor: LogCursor = { next: 0 };
  for (let index = 0; index < receipts.length; index++) {
    const expected = { ...block, transactionHash: txHashes?.[index], transactionIndex: index };
    const found = checkReceipt(receipts[index], `receipts[${index}]`, expected, cursor);
    if (found) return found;
  }
  return undefined;
}

/** One receipt and its logs; `cursor` carries the log position from the receipt before. */
export function checkReceipt(
  value: unknown,
  where: string,
  expected: ReceiptExpectation,
  cursor: LogCursor,
): IntegrityProblem | undefined {
  const receipt = asRecord(value);
  if (!receipt) return problem('malformed', `${where} is ${show(value)}, not an object`);
  const transactionHash = requiredHash(receipt, 'transactionHash', where);
  if (isProblem(transactionHash)) return transactionHash;
  const transactionIndex = requiredQuantity(receipt, 'transactionIndex', where);
  if (isProblem(transactionIndex)) return transactionIndex;
  const blockHash = requiredHash(receipt, 'blockHash', where);
  if (isProblem(blockHash)) return blockHash;
  const blockNumber = requiredQuantity(receipt, 'blockNumber', where);
  if (isProblem(blockNumber)) return blockNumber;
  const mismatch =
    differs('receipt_mismatch', `${where}.transactionHash`, transactionHash, expected.transactionHash) ??
    differs('receipt_mismatch', `${where}.transactionIndex`, transactionIndex, expected.transactionIndex) ??
    differs('receipt_mismatch', `${where}.blockHash`, blockHash, expected.blockHash) ??
    differs('receipt_mismatch', `${where}.blockNumber`, blockNumber, expected.blockNumber);
  if (mismatch) return mismatch;
  if (!Array.isArray(receipt.logs)) return problem('malformed', `${where}.logs is ${show(receipt.logs)}, not an array`);
  const owner = { transactionHash, transactionIndex, blockHash, blockNumber };
  for (let index = 0; index < receipt.logs.length; index++) {
    const found = checkReceiptLog(receipt.logs[index], `${where}.logs[${index}]`, owner, cursor);
    if (found) return found;
  }
  return undefined;
}

function checkReceiptLog(
  value: unknown,
  where: string,
  owner: Required<ReceiptExpectation>,
  cursor: LogCursor,
): IntegrityProblem | undefined {
  const log = asRecord(value);
  if (!log) return problem('malformed', `${where} is ${show(value)}, not an object`);
  const transactionHash = requiredHash(log, 'transactionHash', where);
  if (isProblem(transactionHash)) return transactionHash;
  const fields = [
    ['transactionIndex', optionalQuantity(log, 'transactionIndex', where), owner.transactionIndex],
    ['blockHash', optionalHash(log, 'blockHash', where), owner.blockHash],
    ['blockNumber', optionalQuantity(log, 'blockNumber', where), owner.blockNumber],
  ] as const;
  const mismatch = differs('log_mismatch', `${where}.transactionHash`, transactionHash, owner.transactionHash);
  if (mismatch) return mismatch;
  for (const [field, actual, expected] of fields) {
    if (isProblem(actual)) return actual;
    const found = differs('log_mismatch', `${where}.${field}`, actual, expected);
    if (found) return found;
  }
  const logIndex = optionalQuantity(log, 'logIndex', where);
  if (isProblem(logIndex)) return logIndex;
  const gap = differs('log_index_gap', `${where}.logIndex`, logIndex, cursor.next);
  if (gap) return gap;
  // An absent logIndex still takes a position; the first present one starts the count of a lone receipt.
  cursor.next = logIndex !== undefined ? logIndex + 1 : cursor.next === undefined ? undefined : cursor.next + 1;
  return undefined;
}
