import { invalidRequest } from '../core/errors.ts';
import { mapBounded } from '../core/map-bounded.ts';
import { type ChainCaller, ChainRpcError } from './chain-caller.ts';
import { paramsObject, positionalParams, quote } from './rpc-params.ts';

export interface TransactionReceiptsResult {
  /** The block's receipts as the node gives them; null when the node knows no such block. */
  receipts: unknown[] | null;
}

const blockHashPattern = /^0x[0-9a-fA-F]{64}$/;
const blockNumberPattern = /^0x[0-9a-fA-F]{1,16}$/;
const blockTags = ['latest', 'earliest', 'pending', 'safe', 'finalized'];
/** Receipts fetched at once when the node lacks eth_getBlockReceipts. */
const receiptConcurrency = 8;
/** The node has no eth_getBlockReceipts (older clients) or refuses its params shape. */
const unsupportedCodes = new Set([-32601, -32600, -32602]);

/**
 * `alchemy_getTransactionReceipts [{blockNumber} | {blockHash}]`: the block's receipts from the
 * upstream, by eth_getBlockReceipts, or (a node without it) eth_getTransactionReceipt per transaction.
 */
export async function getTransactionReceipts(chain: ChainCaller, params: unknown): Promise<TransactionReceiptsResult> {
  const [raw] = positionalParams(params, 1, 1);
  const block = parseBlockSelector(paramsObject('params[0]', raw, ['blockNumber', 'blockHash']));
  try {
    return { receipts: (await chain('eth_getBlockReceipts', [block])) as unknown[] | null };
  } catch (error) {
    if (!(error instanceof ChainRpcError) || !unsupportedCodes.has(error.error.code)) throw error;
  }
  return { receipts: await receiptsOneByOne(chain, block) };
}

function parseBlockSelector(selector: Record<string, unknown>): string {
  const { blockNumber, blockHash } = selector;
  if ((blockNumber === undefined) === (blockHash === undefined)) {
    throw invalidRequest('params[0]', 'needs exactly one of blockNumber and blockHash');
  }
  if (blockHash !== undefined) {
    if (typeof blockHash !== 'string' || !blockHashPattern.test(blockHash)) {
      throw invalidRequest('blockHash', `${quote(blockHash)} is not a 32-byte hex hash`);
    }
    return blockHash.toLowerCase();
  }
  if (typeof blockNumber !== 'string' || !(blockNumberPattern.test(blockNumber) || blockTags.includes(blockNumber))) {
    throw invalidRequest('blockNumber', `${quote(blockNumber)} is not a hex block number or one of ${blockTags.join(', ')}`);
  }
  return blockNumber;
}

async function receiptsOneByOne(chain: ChainCaller, block: string): Promise<unknown[] | null> {
  const byHash = block.length === 66;
  const found = (await chain(byHash ? 'eth_getBlockByHash' : 'eth_getBlockByNumber', [block, false])) as {
    transactions: string[];
  } | null;
  if (found === null) return null;
  return mapBounded(found.transactions, receiptConcurrency, (hash) => chain('eth_getTransactionReceipt', [hash]));
}
