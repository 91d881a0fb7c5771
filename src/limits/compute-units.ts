/**
 * Compute units (CU): what a call costs against an account's CU/s budget. Mirrored in
 * docs/compute-units.md (a test keeps the two equal). Fixed by the spec: eth_blockNumber 1,
 * eth_getStorageAt at a historical block 20. The rest follows the spirit of Alchemy's compute units,
 * scaled so eth_blockNumber is 1: constant answers 1, point reads 5-20, range scans and sends 50,
 * traces 100-200. No single call costs more than 200 so the free plan (200 CU/s) can make every call.
 */

import { assetTransfersComputeUnits } from './asset-transfers-units.ts';

/** Methods the table does not list (unknown methods may be expensive; a middle value). */
export const defaultMethodComputeUnits = 20;

/** eth_getStorageAt at 'latest', 'pending', 'safe', 'finalized' or with no block: the node's head state. */
export const currentStorageReadComputeUnits = 5;
/** eth_getStorageAt at any other block (number, hash, EIP-1898 object, 'earliest'): an archive read. */
export const historicalStorageReadComputeUnits = 20;

export const evmComputeUnits: Readonly<Record<string, number>> = Object.freeze({
  // Constant or near-constant answers.
  eth_blockNumber: 1,
  eth_chainId: 1,
  eth_syncing: 1,
  eth_protocolVersion: 1,
  eth_accounts: 1,
  eth_coinbase: 1,
  eth_mining: 1,
  eth_hashrate: 1,
  eth_gasPrice: 1,
  eth_maxPriorityFeePerGas: 1,
  eth_blobBaseFee: 1,
  net_version: 1,
  net_listening: 1,
  net_peerCount: 1,
  web3_clientVersion: 1,
  web3_sha3: 1,
  eth_supportedEntryPoints: 1,
  // Point reads of state, blocks and transactions.
  eth_getBalance: 5,
  eth_getTransactionCount: 5,
  eth_getCode: 5,
  eth_getStorageAt: historicalStorageReadComputeUnits,
  eth_getBlockByNumber: 5,
  eth_getBlockByHash: 5,
  eth_getHeaderByNumber: 5,
  eth_getHeaderByHash: 5,
  eth_getBlockTransactionCountByNumber: 2,
  eth_getBlockTransactionCountByHash: 2,
  eth_getUncleCountByBlockNumber: 2,
  eth_getUncleCountByBlockHash: 2,
  eth_getUncleByBlockNumberAndIndex: 5,
  eth_getUncleByBlockHashAndIndex: 5,
  eth_getTransactionByHash: 5,
  eth_getTransactionByBlockNumberAndIndex: 5,
  eth_getTransactionByBlockHashAndIndex: 5,
  eth_getTransactionReceipt: 5,
  eth_getUserOperationByHash: 10,
  eth_getUserOperationReceipt: 10,
  // Execution and estimation.
  eth_call: 10,
  eth_feeHistory: 10,
  eth_estimateGas: 20,
  eth_createAccessList: 20,
  eth_getProof: 20,
  eth_simulateV1: 40,
  eth_estimateUserOperationGas: 50,
  // Filters and subscriptions.
  eth_newFilter: 5,
  eth_newBlockFilter: 5,
  eth_newPendingTransactionFilter: 5,
  eth_getFilterChanges: 5,
  eth_uninstallFilter: 1,
  eth_subscribe: 10,
  eth_unsubscribe: 1,
  // Range scans.
  eth_getLogs: 50,
  eth_getFilterLogs: 50,
  eth_getBlockReceipts: 50,
  // Writes: they reach the mempool and every upstream.
  eth_sendRawTransaction: 50,
  eth_sendTransaction: 50,
  eth_sendUserOperation: 100,
  // Mempool.
  txpool_status: 5,
  txpool_contentFrom: 20,
  txpool_inspect: 50,
  txpool_content: 100,
  // debug_*: raw data is cheap, re-execution is not.
  debug_getRawHeader: 5,
  debug_getRawBlock: 10,
  debug_getRawTransaction: 10,
  debug_getRawReceipts: 20,
  debug_storageRangeAt: 50,
  debug_traceCall: 100,
  debug_traceTransaction: 100,
  debug_traceBlockByNumber: 200,
  debug_traceBlockByHash: 200,
  // trace_* (Parity/OpenEthereum style).
  trace_get: 20,
  trace_transaction: 50,
  trace_block: 100,
  trace_call: 100,
  trace_rawTransaction: 100,
  trace_callMany: 150,
  trace_filter: 150,
  trace_replayTransaction: 150,
  trace_replayBlockTransactions: 200,
  // Alchemy's enhanced methods, answered by Blockyard (src/alchemy): priced as the REST routes that
  // read the same data, and receipts as eth_getBlockReceipts.
  alchemy_getAssetTransfers: 20, // the base: computeUnitsFor adds the rows the call may read
  alchemy_getTokenBalances: 20,
  alchemy_getTokenMetadata: 5,
  alchemy_getTokenAllowance: 10,
  alchemy_getTransactionReceipts: 50,
  // Transaction simulation: a transaction at 150, one and a half debug_traceCall (it runs one
  // eth_simulateV1 or debug_traceCall, plus the metadata reads); bundles and UserOperations (2 to 5 node
  // calls: a traced transaction of a bundle also takes a state diff) at 200, the most any call costs here.
  // Alchemy's own price (about 2,500) is above every plan's CU/s here, and a request costing more than
  // its plan's CU/s is refused: at that price no plan could simulate at all.
  alchemy_simulateAssetChanges: 150,
  alchemy_simulateExecution: 150,
  alchemy_simulateAssetChangesBundle: 200,
  alchemy_simulateExecutionBundle: 200,
  alchemy_simulateUserOperationAssetChanges: 200,
});

/** REST routes by route id (the `<folder>.<operation>` the route registers with). */
export const restComputeUnits: Readonly<Record<string, number>> = Object.freeze({
  'tokens.balances': 20,
  'tokens.metadata': 5,
  'nfts.metadata': 10,
  'nfts.refresh': 50,
  'nfts.collection': 10,
  'nfts.owned': 20,
  'transfers.list': 20,
  'wallets.create': 50,
  'wallets.get': 5,
  'wallets.list': 10,
  'webhooks.create': 10,
  'webhooks.list': 5,
  'webhooks.update': 10,
  'webhooks.delete': 5,
  'webhooks.get': 5,
  'webhooks.deliveries': 10,
  'webhooks.test': 10,
  'webhooks.redeliver': 10,
  'webhooks.replay': 50,
  'webhooks.rotate_secret': 10,
  'webhooks.addresses.update': 10,
  'webhooks.addresses.replace': 50,
  'webhooks.addresses.list': 5,
  'gas.prices': 5,
  'gas.policies.create': 10,
  'gas.policies.list': 5,
  'gas.policies.get': 5,
  'gas.policies.update': 10,
  'gas.policies.delete': 5,
  'gas.policies.usage': 5,
  'gas.sponsor': 50,
  'bundler.rpc': 10,
  'usage.get': 5,
});

const currentBlockTags = new Set(['latest', 'pending', 'safe', 'finalized']);

/** True when an eth_getStorageAt block parameter names the head state rather than a past block. */
function isCurrentBlock(block: unknown): boolean {
  return block === undefined || block === null || (typeof block === 'string' && currentBlockTags.has(block));
}

/**
 * The CU of one JSON-RPC call. A batch costs the sum of its calls.
 * @example computeUnitsFor('eth_getStorageAt', ['0xabc…', '0x0', '0x10']) // 20 (historical)
 */
export function computeUnitsFor(method: string, params: unknown): number {
  if (method === 'alchemy_getAssetTransfers') return assetTransfersComputeUnits(params);
  if (method === 'eth_getStorageAt') {
    const block = Array.isArray(params) ? params[2] : undefined;
    return isCurrentBlock(block) ? currentStorageReadComputeUnits : historicalStorageReadComputeUnits;
  }
  return Object.hasOwn(evmComputeUnits, method) ? (evmComputeUnits[method] as number) : defaultMethodComputeUnits;
}
