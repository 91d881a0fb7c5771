import { memberText } from '../jsonrpc/raw-answer.ts';
import {
  asRecord,
  type IntegrityProblem,
  isProblem,
  type JsonRecord,
  optionalHash,
  optionalQuantity,
  parseHash,
  parseQuantity,
  problem,
  requiredHash,
  show,
} from './integrity-fields.ts';
import { checkReceipt, checkReceipts } from './receipt-integrity.ts';

/*
 * Checks of an answer about to be cached, run on cache misses of the proxy path, so each is linear
 * in the raw text at worst. Scalar lookups (a block, a transaction) read one top-level member
 * with `memberText`, which skips over the members before it without parsing them (a block's
 * `number` and `hash` come before its transactions in the nodes' usual key order, so the scan
 * usually stops within the first few hundred bytes). Only receipts and logs, whose every element is
 * checked, are parsed. Field rules are those of receipt-integrity.ts.
 */

type AnswerCheck = (params: readonly unknown[], raw: string) => IntegrityProblem | undefined;

const checks = new Map<string, AnswerCheck>([
  ['eth_getBlockByNumber', (params, raw) => checkBlockNumber(params[0], raw)],
  ['eth_getBlockByHash', (params, raw) => checkOwnHash(params[0], raw, 'hash')],
  ['eth_getTransactionByHash', (params, raw) => checkOwnHash(params[0], raw, 'hash')],
  ['eth_getTransactionReceipt', (params, raw) => checkReceiptAnswer(params[0], raw)],
  ['eth_getBlockReceipts', (params, raw) => checkBlockReceiptsAnswer(params[0], raw)],
  ['eth_getLogs', (params, raw) => checkLogsAnswer(params[0], raw)],
]);

/**
 * Whether an upstream's `result` (its raw JSON text) answers the call it was sent for. Undefined
 * when it does, when the method has no check (eth_chainId and the rest), when the call names its
 * block by a tag (nothing to compare), and for a `null` result (nothing to cache).
 *
 * @example checkCallAnswer('eth_getBlockByNumber', ['0x10', false], '{"number":"0x11",...}') // wrong_block
 */
export function checkCallAnswer(method: string, params: unknown, rawResult: string): IntegrityProblem | undefined {
  const check = checks.get(method);
  if (!check || (rawResult.length <= 8 && rawResult.trim() === 'null')) return undefined;
  return check(Array.isArray(params) ? params : [], rawResult);
}

/** Whether `checkCallAnswer` checks anything of `method`'s answers (else a judge of them is not worth building). */
export function hasCallAnswerCheck(method: string): boolean {
  return checks.has(method);
}

/** The content of a JSON string member's raw text (hex values need no unescaping). */
function stringContent(text: string | undefined): string | undefined {
  return text !== undefined && text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
}

/** Cost: one member scan up to `number`. */
function checkBlockNumber(param: unknown, raw: string): IntegrityProblem | undefined {
  const asked = parseQuantity(param);
  if (asked === undefined) return undefined;
  const text = stringContent(memberText(raw, 'number'));
  const number = parseQuantity(text);
  if (number === undefined) return problem('malformed', `result.number is ${show(text)}, not a hex quantity`);
  return number === asked ? undefined : problem('wrong_block', `result.number is ${text}, expected ${param}`);
}

/** A block or transaction looked up by hash: its own `hash`. Cost: one member scan up to `field`. */
function checkOwnHash(param: unknown, raw: string, field: string): IntegrityProblem | undefined {
  const asked = parseHash(param);
  if (asked === undefined) return undefined;
  const text = stringContent(memberText(raw, field));
  const hash = parseHash(text);
  if (hash === undefined) return problem('malformed', `result.${field} is ${show(text)}, not a 32-byte hash`);
  return hash === asked ? undefined : problem('wrong_hash', `result.${field} is ${hash}, expected ${asked}`);
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** Cost: one parse of the receipt (its logs are checked against it, each consecutive to the one before). */
function checkReceiptAnswer(param: unknown, raw: string): IntegrityProblem | undefined {
  const asked = parseHash(param);
  if (asked === undefined) return undefined;
  const receipt = asRecord(parseJson(raw));
  if (!receipt) return problem('malformed', `result is ${show(raw)}, not an object`);
  const hash = requiredHash(receipt, 'transactionHash', 'result');
  if (isProblem(hash)) return hash;
  if (hash !== asked) return problem('wrong_hash', `result.transactionHash is ${hash}, expected ${asked}`);
  return checkReceipt(receipt, 'result', {}, { next: undefined });
}

/** The block an eth_getBlockReceipts call names: a number, a hash, an EIP-1898 object, or a tag (neither). */
function askedBlock(param: unknown): { blockNumber?: number | undefined; blockHash?: string | undefined } {
  const object = asRecord(param);
  if (object) return { blockNumber: parseQuantity(object.blockNumber), blockHash: parseHash(object.blockHash) };
  return { blockNumber: parseQuantity(param), blockHash: parseHash(param) };
}

/** Cost: one parse of the array; every receipt and log visited once. */
function checkBlockReceiptsAnswer(param: unknown, raw: string): IntegrityProblem | undefined {
  const receipts = parseJson(raw);
  if (!Array.isArray(receipts)) return problem('malformed', `result is ${show(raw)}, not an array`);
  if (receipts.length === 0) return undefined;
  const asked = askedBlock(param);
  // The first receipt names the block answered: another block than the one asked is a wrong block,
  // receipts disagreeing among themselves are a receipt mismatch.
  const first = asRecord(receipts[0]);
  const firstNumber = first ? parseQuantity(first.blockNumber) : undefined;
  const firstHash = first ? parseHash(first.blockHash) : undefined;
  if (asked.blockNumber !== undefined && firstNumber !== undefined && firstNumber !== asked.blockNumber)
    return problem(
      'wrong_block',
      `receipts[0].blockNumber is ${show(first?.blockNumber)}, expected 0x${asked.blockNumber.toString(16)}`,
    );
  if (asked.blockHash !== undefined && firstHash !== undefined && firstHash !== asked.blockHash)
    return problem('wrong_block', `receipts[0].blockHash is ${firstHash}, expected ${asked.blockHash}`);
  return checkReceipts(receipts, { blockNumber: firstNumber, blockHash: firstHash });
}

interface LogPlace {
  blockNumber: number | undefined;
  blockHash: string | undefined;
  logIndex: number | undefined;
}

/**
 * eth_getLogs: every log inside the numeric bounds of the filter (a tag bound is not checked), in
 * the filter's block when it names one, and the logs in strictly increasing (blockNumber, logIndex)
 * order with one hash per block number. Not contiguous: a filter selects some of a block's logs.
 * Cost: one parse of the array; every log visited once.
 */
function checkLogsAnswer(param: unknown, raw: string): IntegrityProblem | undefined {
  const logs = parseJson(raw);
  if (!Array.isArray(logs)) return problem('malformed', `result is ${show(raw)}, not an array`);
  const filter = asRecord(param) ?? {};
  const from = parseQuantity(filter.fromBlock);
  const to = parseQuantity(filter.toBlock);
  const filterHash = parseHash(filter.blockHash);
  let previous: LogPlace | undefined;
  for (let index = 0; index < logs.length; index++) {
    const where = `result[${index}]`;
    const log = asRecord(logs[index]);
    if (!log) return problem('malformed', `${where} is ${show(logs[index])}, not an object`);
    const place = logPlace(log, where);
    if (isProblem(place)) return place;
    const { blockNumber, blockHash } = place;
    if (blockNumber !== undefined && ((from !== undefined && blockNumber < from) || (to !== undefined && blockNumber > to)))
      return problem(
        'log_mismatch',
        `${where}.blockNumber is ${show(log.blockNumber)}, outside ${show(filter.fromBlock)}..${show(filter.toBlock)}`,
      );
    if (filterHash !== undefined && blockHash !== undefined && blockHash !== filterHash)
      return problem('log_mismatch', `${where}.blockHash is ${blockHash}, expected ${filterHash}`);
    const order = previous && checkOrder(previous, place, where, filterHash !== undefined);
    if (order) return order;
    previous = place;
  }
  return undefined;
}

function logPlace(log: JsonRecord, where: string): LogPlace | IntegrityProblem {
  const transactionHash = requiredHash(log, 'transactionHash', where);
  if (isProblem(transactionHash)) return transactionHash;
  const blockNumber = optionalQuantity(log, 'blockNumber', where);
  if (isProblem(blockNumber)) return blockNumber;
  const blockHash = optionalHash(log, 'blockHash', where);
  if (isProblem(blockHash)) return blockHash;
  const logIndex = optionalQuantity(log, 'logIndex', where);
  if (isProblem(logIndex)) return logIndex;
  return { blockNumber, blockHash, logIndex };
}

/** `oneBlock`: the filter named a block hash, so logs without a number are all in one block. */
function checkOrder(previous: LogPlace, current: LogPlace, where: string, oneBlock: boolean): IntegrityProblem | undefined {
  const sameNumber = current.blockNumber !== undefined && current.blockNumber === previous.blockNumber;
  if (
    sameNumber &&
    current.blockHash !== undefined &&
    previous.blockHash !== undefined &&
    current.blockHash !== previous.blockHash
  )
    return problem(
      'log_mismatch',
      `${where}.blockHash is ${current.blockHash}, the log before it in block ${current.blockNumber} has ${previous.blockHash}`,
    );
  if (current.blockNumber !== undefined && previous.blockNumber !== undefined && current.blockNumber < previous.blockNumber)
    return problem('log_index_gap', `${where}.blockNumber ${current.blockNumber} comes after block ${previous.blockNumber}`);
  const sameBlock = sameNumber || (oneBlock && (current.blockNumber === undefined || previous.blockNumber === undefined));
  if (sameBlock && current.logIndex !== undefined && previous.logIndex !== undefined && current.logIndex <= previous.logIndex)
    return problem(
      'log_index_gap',
      `${where}.logIndex ${current.logIndex} comes after logIndex ${previous.logIndex} of its block`,
    );
  return undefined;
}
