/** What a request reads of the chain, so that the pool sends it to an upstream able to answer it. */
export interface ReadNeed {
  /** The method (a batch: its first call's). */
  readonly method: string;
  /** A batch's methods, each checked against an upstream's `methods` and priced by its compute-unit table. */
  readonly methods?: readonly string[];
  /** The highest block the request names by number; -1: none. */
  readonly block: number;
  /** The lowest block the request names by number (old state needs an archive node); -1: none. */
  readonly oldest: number;
  /** Reads at the tip (`latest`, `pending`, no block given): only an upstream at the served tip may answer. */
  readonly atTip: boolean;
  /** A lookup by hash: a `null` from an upstream behind the served tip is asked again of one at it. */
  readonly byHash: boolean;
  /** eth_getLogs over a block range: its first block (the span is worked out against the tip); -1: not one. */
  readonly logsFrom: number;
  /** Checks an answer before it is used (the indexer's batches, answers bound for the cache). */
  readonly judge?: (text: string) => AnswerVerdict;
  /** A filter method: `create` installs one on the node that answers; else the filter `id` it uses, which lives on one node. */
  readonly filter?: { readonly create: true } | { readonly id: string };
}

/**
 * What `judge` found: `missing`, the upstream lacks what was asked (a node behind); `corrupt`, the
 * answer contradicts itself or the request (integrity). Either way another upstream is asked.
 */
export type AnswerVerdict = undefined | { readonly kind: 'missing' | 'corrupt'; readonly detail: string };

/** A read with nothing known about it: sent to an upstream at the served tip. */
export const anyRead: ReadNeed = { method: '', block: -1, oldest: -1, atTip: true, byHash: false, logsFrom: -1 };

/** Index of the block parameter of the methods that read at a block (tag, number or EIP-1898 object). */
const blockParamIndex: Record<string, number> = {
  eth_getBlockByNumber: 0,
  eth_getBlockReceipts: 0,
  eth_getBlockTransactionCountByNumber: 0,
  eth_getTransactionByBlockNumberAndIndex: 0,
  eth_getUncleCountByBlockNumber: 0,
  eth_getUncleByBlockNumberAndIndex: 0,
  debug_traceBlockByNumber: 0,
  trace_block: 0,
  trace_replayBlockTransactions: 0,
  eth_call: 1,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_feeHistory: 1,
  debug_traceCall: 1,
  eth_getStorageAt: 2,
  eth_getProof: 2,
  trace_call: 2,
};

const byHashMethods = new Set([
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getBlockTransactionCountByHash',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleByBlockHashAndIndex',
  'debug_traceTransaction',
  'debug_traceBlockByHash',
  'trace_transaction',
  'trace_replayTransaction',
  'trace_get',
]);

/** Methods about the node or the network, not about a block: any verified upstream answers them alike. */
const blocklessMethods = new Set([
  'eth_chainId',
  'net_version',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'web3_sha3',
  'eth_protocolVersion',
  'eth_accounts',
  'eth_sendRawTransaction',
  'eth_sendRawTransactionConditional',
  'eth_sendRawTransactionSync',
]);

const filterCreators = new Set(['eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter']);
const filterUsers = new Set(['eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter']);

const tipMethods = new Set(['eth_blockNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas', 'eth_blobBaseFee', 'eth_syncing']);

interface BlockRef {
  block: number;
  atTip: boolean;
  byHash: boolean;
}

/**
 * The need of one call, from its method and params (as parsed JSON).
 *
 * @example readNeedOf('eth_getBalance', ['0xab…', '0x10']) // { block: 16, oldest: 16, atTip: false, … }
 */
export function readNeedOf(method: string, params: unknown): ReadNeed {
  const list = Array.isArray(params) ? params : [];
  if (byHashMethods.has(method)) return need(method, { block: -1, atTip: false, byHash: true });
  if (method === 'eth_getLogs') return logsNeed(method, list[0]);
  const index = blockParamIndex[method];
  if (index !== undefined) {
    // eth_feeHistory's newest block is required; the others default to latest when left out.
    return need(method, blockRefOf(list[index]));
  }
  if (tipMethods.has(method)) return need(method, { block: -1, atTip: true, byHash: false });
  if (filterCreators.has(method)) return { ...anyRead, method, filter: { create: true } };
  if (filterUsers.has(method) && typeof list[0] === 'string') {
    return { ...anyRead, method, filter: { id: list[0] } };
  }
  if (blocklessMethods.has(method)) return need(method, { block: -1, atTip: false, byHash: false });
  return { ...anyRead, method };
}

function need(method: string, ref: BlockRef, logsFrom = -1, oldest = ref.block): ReadNeed {
  return { method, block: ref.block, oldest, atTip: ref.atTip, byHash: ref.byHash, logsFrom };
}

/** A block parameter: absent/`latest`/`pending` is the tip, `safe`/`finalized`/`earliest` are below any lag. */
function blockRefOf(param: unknown): BlockRef {
  if (param === undefined || param === null || param === 'latest' || param === 'pending') {
    return { block: -1, atTip: true, byHash: false };
  }
  if (param === 'earliest') return { block: 0, atTip: false, byHash: false };
  if (typeof param === 'string') {
    if (param.length === 66) return { block: -1, atTip: false, byHash: true };
    const number = blockNumberOf(param);
    return { block: number ?? -1, atTip: false, byHash: false };
  }
  if (typeof param === 'object') {
    const { blockNumber, blockHash } = param as { blockNumber?: unknown; blockHash?: unknown };
    if (typeof blockHash === 'string') return { block: -1, atTip: false, byHash: true };
    if (blockNumber !== undefined) return blockRefOf(blockNumber);
  }
  return { block: -1, atTip: false, byHash: false };
}

function logsNeed(method: string, filter: unknown): ReadNeed {
  if (filter === null || typeof filter !== 'object') return { ...anyRead, method };
  const { fromBlock, toBlock, blockHash } = filter as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };
  if (typeof blockHash === 'string') return need(method, { block: -1, atTip: false, byHash: true });
  const to = blockRefOf(toBlock);
  const from = blockRefOf(fromBlock);
  const first = from.atTip ? -1 : from.block;
  return need(method, to, first, first);
}

/** A `0x` hex block number, or undefined. */
export function blockNumberOf(text: string): number | undefined {
  if (!/^0x[0-9a-fA-F]{1,13}$/.test(text)) return undefined;
  return Number.parseInt(text, 16);
}
