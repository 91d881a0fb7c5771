import {
  asRecord,
  differs,
  type IntegrityProblem,
  isProblem,
  type JsonRecord,
  optionalHash,
  optionalQuantity,
  parseHash,
  parseQuantity,
  problem,
  requiredHash,
  requiredQuantity,
  show,
} from './integrity-fields.ts';
import { checkReceipts } from './receipt-integrity.ts';

/*
 * Checks of one upstream's answer about a block before it is indexed. Which fields must be present
 * follows ethereum/execution-apis, src/schemas: Block (block.yaml) requires hash, parentHash, number
 * and transactions; TransactionInfo (transaction.yaml) requires hash, blockHash, blockNumber and
 * transactionIndex; one absent is `malformed`. Receipts and logs: receipt-integrity.ts. Traces have
 * no execution-apis schema (trace_block is the parity API), so every trace field is optional here.
 * The roots (transactions, receipts) are not recomputed: that means hashing the whole block.
 */

/** One block as the indexer fetches it: `eth_getBlockByNumber(n, true)`, `eth_getBlockReceipts(n)`, traces. */
export interface BundleAnswer {
  block: unknown;
  receipts: unknown;
  traces?: unknown;
}

/**
 * A block with its receipts (and traces) as one upstream answered them, for block `expectedNumber`.
 * Checked in this order: the block's own fields, its transactions, the receipts against the
 * transactions, the logs against their receipts and their positions, the traces.
 */
export function checkBlockBundle(bundle: BundleAnswer, expectedNumber: number): IntegrityProblem | undefined {
  const block = asRecord(bundle.block);
  if (!block) return problem('malformed', `block is ${show(bundle.block)}, not an object`);
  const number = requiredQuantity(block, 'number', 'block');
  if (isProblem(number)) return number;
  const wrong = differs('wrong_block', 'block.number', number, expectedNumber);
  if (wrong) return wrong;
  const hash = requiredHash(block, 'hash', 'block');
  if (isProblem(hash)) return hash;
  const parentHash = requiredHash(block, 'parentHash', 'block');
  if (isProblem(parentHash)) return parentHash;
  const txHashes = checkTransactions(block.transactions, number, hash);
  if (isProblem(txHashes)) return txHashes;
  if (!Array.isArray(bundle.receipts)) return problem('malformed', `receipts is ${show(bundle.receipts)}, not an array`);
  if (bundle.receipts.length !== txHashes.length)
    return problem('receipt_mismatch', `${bundle.receipts.length} receipts for ${txHashes.length} transactions`);
  const receipts = checkReceipts(bundle.receipts, { blockNumber: number, blockHash: hash }, txHashes);
  if (receipts) return receipts;
  return bundle.traces === undefined ? undefined : checkTraces(bundle.traces, number, hash, txHashes);
}

/**
 * The block's transactions (full objects or bare hashes); their hashes in order. A transaction
 * that claims another block, or another position in this one, is a `wrong_block`.
 */
function checkTransactions(value: unknown, number: number, hash: string): string[] | IntegrityProblem {
  if (!Array.isArray(value)) return problem('malformed', `block.transactions is ${show(value)}, not an array`);
  const hashes: string[] = [];
  for (let index = 0; index < value.length; index++) {
    const where = `transactions[${index}]`;
    const item: unknown = value[index];
    if (typeof item === 'string') {
      const txHash = parseHash(item);
      if (!txHash) return problem('malformed', `${where} is ${show(item)}, not a 32-byte hash`);
      hashes.push(txHash);
      continue;
    }
    const tx = asRecord(item);
    if (!tx) return problem('malformed', `${where} is ${show(item)}, not an object`);
    const txHash = requiredHash(tx, 'hash', where);
    if (isProblem(txHash)) return txHash;
    const placed = checkPlacement(tx, where, number, hash, index);
    if (placed) return placed;
    hashes.push(txHash);
  }
  return hashes;
}

function checkPlacement(
  tx: JsonRecord,
  where: string,
  number: number,
  hash: string,
  index: number,
): IntegrityProblem | undefined {
  const blockHash = requiredHash(tx, 'blockHash', where);
  if (isProblem(blockHash)) return blockHash;
  const blockNumber = requiredQuantity(tx, 'blockNumber', where);
  if (isProblem(blockNumber)) return blockNumber;
  const txIndex = requiredQuantity(tx, 'transactionIndex', where);
  if (isProblem(txIndex)) return txIndex;
  return (
    differs('wrong_block', `${where}.blockHash`, blockHash, hash) ??
    differs('wrong_block', `${where}.blockNumber`, blockNumber, number) ??
    differs('wrong_block', `${where}.transactionIndex`, txIndex, index)
  );
}

/**
 * Traces of the block: parity `trace_block` entries carry the block's number (a JSON number) and
 * hash, and every trace that names a transaction must name one of this block's, at its position.
 * Block reward traces name none. geth's callTracer output, flattened, carries only the hash.
 */
function checkTraces(value: unknown, number: number, hash: string, txHashes: readonly string[]): IntegrityProblem | undefined {
  if (!Array.isArray(value)) return problem('malformed', `traces is ${show(value)}, not an array`);
  const positions = new Map(txHashes.map((txHash, index) => [txHash, index]));
  for (let index = 0; index < value.length; index++) {
    const where = `traces[${index}]`;
    const trace = asRecord(value[index]);
    if (!trace) return problem('malformed', `${where} is ${show(value[index])}, not an object`);
    const blockHash = optionalHash(trace, 'blockHash', where);
    if (isProblem(blockHash)) return blockHash;
    const blockNumber = typeof trace.blockNumber === 'number' ? trace.blockNumber : optionalQuantity(trace, 'blockNumber', where);
    if (isProblem(blockNumber)) return blockNumber;
    const txHash = optionalHash(trace, 'transactionHash', where);
    if (isProblem(txHash)) return txHash;
    const position = txHash === undefined ? undefined : positions.get(txHash);
    if (txHash !== undefined && position === undefined)
      return problem('wrong_block', `${where}.transactionHash ${txHash} is not a transaction of block ${number}`);
    const claimed = typeof trace.transactionPosition === 'number' ? trace.transactionPosition : undefined;
    const found =
      differs('wrong_block', `${where}.blockHash`, blockHash, hash) ??
      differs('wrong_block', `${where}.blockNumber`, blockNumber, number) ??
      differs('wrong_block', `${where}.transactionPosition`, claimed, position);
    if (found) return found;
  }
  return undefined;
}

/** A block as `checkChainLinks` reads it: a number (or hex quantity) and its hashes. */
export interface LinkedBlock {
  number: number | string;
  hash: string;
  parentHash: string;
}

/**
 * The index of the first block of one upstream's answer that does not sit on the block before it
 * (parentHash is not that block's hash, or its number does not follow), or undefined. The first
 * block is checked against `below` when given. Blocks of ONE answer must link, so a break is a
 * corrupt answer. This is not reorg detection: the indexer's `linkedPrefix` (write-chunks.ts)
 * compares a batch with the tip it stored, where a break means the chain moved; do not pass that
 * tip as `below` here.
 */
export function checkChainLinks(
  blocks: readonly LinkedBlock[],
  below?: { number: number | string; hash: string },
): number | undefined {
  let previous = below && { number: numberOf(below.number), hash: below.hash.toLowerCase() };
  for (let index = 0; index < blocks.length; index++) {
    const block = blocks[index]!;
    const number = numberOf(block.number);
    if (previous && (number !== previous.number + 1 || block.parentHash.toLowerCase() !== previous.hash)) return index;
    previous = { number, hash: block.hash.toLowerCase() };
  }
  return undefined;
}

function numberOf(value: number | string): number {
  return typeof value === 'number' ? value : (parseQuantity(value) ?? Number.NaN);
}

/**
 * Consecutive bundles from `firstNumber` as one batch answer: each bundle checked, then the
 * blocks linked to each other (not to the indexer's tip: see `checkChainLinks`).
 */
export function checkBundleBatch(bundles: readonly BundleAnswer[], firstNumber: number): IntegrityProblem | undefined {
  for (let index = 0; index < bundles.length; index++) {
    const found = checkBlockBundle(bundles[index]!, firstNumber + index);
    if (found) return { code: found.code, detail: `block ${firstNumber + index}: ${found.detail}` };
  }
  // Every block was just checked to have a number and well-formed hashes.
  const blocks = bundles.map((bundle) => bundle.block as LinkedBlock);
  const broken = checkChainLinks(blocks);
  if (broken === undefined) return undefined;
  const number = firstNumber + broken;
  return problem(
    'broken_link',
    `block ${number}.parentHash is ${blocks[broken]!.parentHash}, block ${number - 1}.hash is ${blocks[broken - 1]!.hash}`,
  );
}
