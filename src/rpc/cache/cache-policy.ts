/**
 * How long an answer may be reused:
 * - `final`: it can no longer change (chain id, reads at a block the network counts as final: its
 *   nodes' `finalized` tag or `finality_depth` deep, src/chains/final-block.ts);
 * - `head`: until the head moves (or a reorg), i.e. at most one block;
 * - `by-result`: a lookup by hash, final once the block in its result is final, else `head`;
 * - `none`: never (errors are never stored whatever the scope).
 */
export type CacheScope = 'final' | 'head' | 'by-result' | 'none';

const alwaysFinal = new Set(['eth_chainId', 'net_version']);

const headDependent = new Set([
  'eth_blockNumber',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_blobBaseFee',
]);

/** Lookups by hash: the answer carries its block number (null while pending, and never stored). */
const byHash = new Set([
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getBlockTransactionCountByHash',
]);

/** Reads at a block: the index of their block parameter. */
const blockParamIndex: Record<string, number> = {
  eth_getBlockByNumber: 0,
  eth_getBlockReceipts: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_call: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_getProof: 2,
};

/** Whether a method's answers may ever be reused or shared: the cache's hot-path gate. */
export function isCacheableMethod(method: string): boolean {
  return (
    alwaysFinal.has(method) ||
    headDependent.has(method) ||
    byHash.has(method) ||
    Object.hasOwn(blockParamIndex, method) ||
    method === 'eth_getLogs'
  );
}

/** The scope of a call before it is answered. `finalBlock`: the network's newest final block, if known (src/chains/final-block.ts). */
export function cacheScopeFor(method: string, params: unknown, finalBlock: number | undefined): CacheScope {
  if (alwaysFinal.has(method)) return 'final';
  if (headDependent.has(method)) return 'head';
  if (byHash.has(method)) return 'by-result';
  const list = Array.isArray(params) ? params : [];
  if (method === 'eth_getLogs') return logsScope(list[0], finalBlock);
  const index = blockParamIndex[method];
  if (index === undefined) return 'none';
  const block = list[index];
  // eth_getBlockReceipts also takes a block hash.
  if (method === 'eth_getBlockReceipts' && typeof block === 'string' && block.length === 66) return 'by-result';
  return blockScope(block, finalBlock);
}

/** The final scope of a `by-result` answer, from the block number found in its raw text. */
export function scopeOfResult(rawResult: string, finalBlock: number | undefined): 'final' | 'head' {
  const match = blockNumberInResult.exec(rawResult);
  if (!match) return 'head';
  return isFinal(Number.parseInt(match[1]!, 16), finalBlock) ? 'final' : 'head';
}

/** A block's own `number`, or the `blockNumber` of a transaction, receipt or log (the first one). */
const blockNumberInResult = /"(?:blockNumber|number)":"0x([0-9a-fA-F]{1,16})"/;

function isFinal(block: number, finalBlock: number | undefined): boolean {
  return finalBlock !== undefined && block <= finalBlock;
}

/** A block parameter: a tag, a hex number, or an EIP-1898 object. Absent means `latest`. */
export function blockScope(block: unknown, finalBlock: number | undefined): CacheScope {
  if (block === undefined || block === 'latest' || block === 'safe' || block === 'finalized') return 'head';
  if (block === 'earliest') return 'final';
  if (typeof block === 'string') {
    const number = parseBlockNumber(block);
    if (number === undefined) return 'none';
    return isFinal(number, finalBlock) ? 'final' : 'head';
  }
  if (block !== null && typeof block === 'object') {
    const { blockNumber, blockHash } = block as { blockNumber?: unknown; blockHash?: unknown };
    if (typeof blockNumber === 'string') return blockScope(blockNumber, finalBlock);
    if (typeof blockHash === 'string') return 'head';
  }
  return 'none';
}

function logsScope(filter: unknown, finalBlock: number | undefined): CacheScope {
  if (filter === null || typeof filter !== 'object') return 'none';
  const { fromBlock, toBlock, blockHash } = filter as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };
  if (typeof blockHash === 'string') return 'by-result';
  const from = blockScope(fromBlock, finalBlock);
  const to = blockScope(toBlock, finalBlock);
  if (from === 'none' || to === 'none') return 'none';
  return to === 'final' ? 'final' : 'head';
}

/** A `0x` hex block number, or undefined. */
export function parseBlockNumber(text: string): number | undefined {
  if (!/^0x[0-9a-fA-F]{1,13}$/.test(text)) return undefined;
  return Number.parseInt(text, 16);
}
