/**
 * Reads that return a block (or a part of one) by its number: their first parameter is the block.
 * A `latest` or missing block is read at the served tip instead, so an upstream a block or two behind
 * can never answer with a block lower than an `eth_blockNumber` already answered.
 */
const blockReadMethods = new Set([
  'eth_getBlockByNumber',
  'eth_getBlockReceipts',
  'eth_getBlockTransactionCountByNumber',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getUncleCountByBlockNumber',
  'eth_getUncleByBlockNumberAndIndex',
]);

/** Whether `method` reads a block by number, so that its `latest` is worth pinning. Cheap: one set lookup. */
export function isBlockRead(method: string): boolean {
  return blockReadMethods.has(method);
}

/**
 * The params of a block read at `latest` with the block replaced by `tip` as a hex number; undefined
 * when nothing is to change: another method, an explicit block or another tag, or no tip yet (`tip` <
 * 0). `pending` is left alone: it names a block above the tip, which pinning would turn into the tip's
 * own. A missing block is too: these methods require it, and the node's own error is the answer.
 *
 * @example pinLatest('eth_getBlockByNumber', ['latest', false], 18) // ['0x12', false]
 */
export function pinLatest(method: string, params: unknown, tip: number): unknown[] | undefined {
  if (tip < 0 || !blockReadMethods.has(method)) return undefined;
  if (!Array.isArray(params) || params[0] !== 'latest') return undefined;
  const pinned = [...params];
  pinned[0] = `0x${tip.toString(16)}`;
  return pinned;
}
