import type { CuTableName } from '../config/chain-settings.ts';

/**
 * What one JSON-RPC call costs against a provider's per-second budget (an upstream's `cu_per_s`), per
 * the provider's published table. Not Blockyard's own CU table for its clients (src/limits/compute-units.ts).
 *
 * Sources:
 * - alchemy: "Compute Unit Costs", https://www.alchemy.com/docs/reference/compute-unit-costs (its docs
 *   repo alchemyplatform/docs, fern/api-reference/pricing-resources/pricing/compute-unit-costs.mdx, plus
 *   the rows the live page has since added: eth_blobBaseFee, eth_getAccount, eth_callMany,
 *   eth_sendRawTransactionSync). Where a method has a "Throughput CU" that is the number kept here:
 *   Alchemy counts Throughput CU against CUPS ("If there is no throughput CU listed, it defaults to the
 *   actual CU cost", /reference/compute-units).
 * - quicknode: "API Credits", https://www.quicknode.com/api-credits/eth: a per-chain multiplier for all
 *   methods (20 on Ethereum, Base, Arbitrum, Optimism, Polygon, BNB and most EVM chains), 2x for
 *   Trace & Debug, txpool and arbtrace, 4x for the "Large Calls". The page's per-method list did not
 *   render where it was read, so the table is that rule applied; other chains (30 on zkSync, Scroll,
 *   Gnosis; 40 on Fantom, Celo; 50 on Polygon zkEVM) keep the same ratios, so set `cu_per_s` in
 *   Ethereum-equivalent credits there.
 * - infura: "Credit costs", https://docs.metamask.io/services/get-started/pricing/credit-cost
 *   (MetaMask/metamask-docs, services/get-started/pricing/credit-cost.md at 2562e51, the last version
 *   kept as Markdown; an earlier one had eth_sendRawTransaction at 720, the live method pages say 80).
 *   Infura also bills the batch envelope itself; that is not a method and is left to the caller.
 * - flat: 1 per call, for a node limited by requests (then `cu_per_s` is an rps).
 *
 * Subscription events (Infura: logs 300, newHeads 50 per block; Alchemy: 0.04 CU per byte) are billed
 * per event delivered, not per call, so only eth_subscribe and eth_unsubscribe are here.
 */

interface CuTable {
  readonly costs: Readonly<Record<string, number>>;
  /** What an unlisted method costs. */
  readonly defaultCost: number;
}

/** A prototype-less object, so a method named `constructor` or `__proto__` finds no inherited member. */
function costTable(costs: Record<string, number>): Readonly<Record<string, number>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, number>, costs));
}

const alchemy: CuTable = {
  costs: costTable({
    net_version: 0,
    eth_chainId: 0,
    eth_syncing: 0,
    eth_protocolVersion: 0,
    net_listening: 0,
    eth_uninstallFilter: 10,
    eth_accounts: 10,
    eth_blockNumber: 10,
    eth_subscribe: 10,
    eth_unsubscribe: 10,
    eth_feeHistory: 10,
    eth_maxPriorityFeePerGas: 10,
    eth_blobBaseFee: 10,
    eth_createAccessList: 10,
    eth_getTransactionReceipt: 20,
    eth_getUncleByBlockHashAndIndex: 20,
    eth_getUncleByBlockNumberAndIndex: 20,
    eth_getTransactionByBlockHashAndIndex: 20,
    eth_getTransactionByBlockNumberAndIndex: 20,
    eth_getUncleCountByBlockHash: 20,
    eth_getUncleCountByBlockNumber: 20,
    web3_clientVersion: 20,
    web3_sha3: 20,
    eth_getBlockByNumber: 20,
    eth_getBlockByHash: 20,
    eth_getStorageAt: 20,
    eth_getTransactionByHash: 20,
    eth_gasPrice: 20,
    eth_getBalance: 20,
    eth_getCode: 20,
    eth_getFilterChanges: 20,
    eth_newBlockFilter: 20,
    eth_newFilter: 20,
    eth_newPendingTransactionFilter: 20,
    eth_getBlockTransactionCountByHash: 20,
    eth_getBlockTransactionCountByNumber: 20,
    eth_getProof: 20,
    eth_getAccount: 20,
    eth_getTransactionCount: 20,
    eth_estimateGas: 20,
    eth_callMany: 20,
    eth_call: 26,
    eth_simulateV1: 40,
    eth_getFilterLogs: 60,
    eth_getLogs: 60,
    // Throughput CU (billed CU in brackets).
    eth_sendRawTransaction: 250, // (40)
    eth_sendRawTransactionSync: 250, // (40)
    eth_getBlockReceipts: 500, // (20)
    debug_traceTransaction: 1000, // (40)
    debug_traceCall: 1000, // (40)
    debug_traceBlockByHash: 1000, // (40)
    debug_traceBlockByNumber: 1000, // (40)
    trace_get: 20,
    trace_block: 20,
    trace_transaction: 40,
    trace_call: 40,
    trace_rawTransaction: 40,
    trace_filter: 40,
    trace_replayTransaction: 3000, // (80)
    trace_replayBlockTransactions: 3000, // (80)
    // Not in the table: priced as their nearest listed sibling rather than the default, which would
    // let a block trace through at a fiftieth of its weight.
    debug_traceBlock: 1000,
    debug_traceCallMany: 1000,
    trace_callMany: 40,
    // Bundler, token, transfer and transact APIs (Throughput CU where listed).
    eth_sendUserOperation: 100,
    eth_estimateUserOperationGas: 50,
    eth_getUserOperationByHash: 17,
    eth_getUserOperationReceipt: 15,
    eth_supportedEntryPoints: 5,
    rundler_maxPriorityFeePerGas: 10,
    alchemy_getTokenBalances: 20,
    alchemy_getTokenMetadata: 10,
    alchemy_getTokenAllowance: 20,
    alchemy_getAssetTransfers: 120,
    alchemy_getTransactionReceipts: 250,
    eth_sendPrivateTransaction: 250,
    eth_cancelPrivateTransaction: 250,
  }),
  // Alchemy documents no default for an existing but unlisted method (net_peerCount, eth_getHeaderByNumber,
  // txpool_*): 20, the cost of its point reads, which most of them are.
  defaultCost: 20,
};

const quicknodeBase = 20;
const quicknodeAdvanced = 2 * quicknodeBase;
const quicknodeLarge = 4 * quicknodeBase;

const quicknode: CuTable = {
  costs: costTable({
    debug_traceTransaction: quicknodeAdvanced,
    debug_traceCall: quicknodeAdvanced,
    debug_traceCallMany: quicknodeAdvanced,
    debug_traceBlock: quicknodeAdvanced,
    debug_traceBlockByHash: quicknodeAdvanced,
    debug_traceBlockByNumber: quicknodeAdvanced,
    debug_storageRangeAt: quicknodeAdvanced,
    debug_getBadBlocks: quicknodeAdvanced,
    debug_getRawBlock: quicknodeAdvanced,
    debug_getRawHeader: quicknodeAdvanced,
    debug_getRawReceipts: quicknodeAdvanced,
    debug_getRawTransaction: quicknodeAdvanced,
    trace_block: quicknodeAdvanced,
    trace_call: quicknodeAdvanced,
    trace_callMany: quicknodeAdvanced,
    trace_filter: quicknodeAdvanced,
    trace_get: quicknodeAdvanced,
    trace_rawTransaction: quicknodeAdvanced,
    trace_transaction: quicknodeAdvanced,
    txpool_status: quicknodeAdvanced,
    txpool_inspect: quicknodeAdvanced,
    txpool_contentFrom: quicknodeAdvanced,
    arbtrace_block: quicknodeAdvanced,
    arbtrace_call: quicknodeAdvanced,
    arbtrace_callMany: quicknodeAdvanced,
    arbtrace_filter: quicknodeAdvanced,
    arbtrace_get: quicknodeAdvanced,
    arbtrace_transaction: quicknodeAdvanced,
    txpool_content: quicknodeLarge,
    trace_replayTransaction: quicknodeLarge,
    trace_replayBlockTransactions: quicknodeLarge,
    arbtrace_replayTransaction: quicknodeLarge,
    arbtrace_replayBlockTransactions: quicknodeLarge,
  }),
  // Every other method, the standard eth_/net_/web3_ ones and eth_subscribe included, is the chain's base.
  defaultCost: quicknodeBase,
};

const infura: CuTable = {
  costs: costTable({
    eth_accounts: 80,
    eth_blobBaseFee: 300,
    eth_blockNumber: 80,
    eth_call: 80,
    eth_chainId: 5,
    eth_createAccessList: 80,
    eth_estimateGas: 300,
    eth_feeHistory: 80,
    eth_gasPrice: 80,
    eth_getBalance: 80,
    eth_getBlockByHash: 80,
    eth_getBlockByNumber: 80,
    eth_getBlockReceipts: 1000,
    eth_getBlockTransactionCountByHash: 150,
    eth_getBlockTransactionCountByNumber: 150,
    eth_getCode: 80,
    eth_getLogs: 255,
    eth_getProof: 150,
    eth_getStorageAt: 80,
    eth_getTransactionByBlockHashAndIndex: 150,
    eth_getTransactionByBlockNumberAndIndex: 150,
    eth_getTransactionByHash: 80,
    eth_getTransactionCount: 80,
    eth_getTransactionReceipt: 80,
    eth_getUncleByBlockHashAndIndex: 150,
    eth_getUncleByBlockNumberAndIndex: 150,
    eth_getUncleCountByBlockHash: 150,
    eth_getUncleCountByBlockNumber: 150,
    eth_getWork: 80,
    eth_hashrate: 5,
    eth_maxPriorityFeePerGas: 80,
    eth_mining: 5,
    eth_protocolVersion: 5,
    eth_sendRawTransaction: 80,
    eth_sign: 80,
    eth_submitWork: 80,
    eth_subscribe: 5,
    eth_syncing: 5,
    eth_unsubscribe: 10,
    net_listening: 5,
    net_peerCount: 80,
    net_version: 5,
    web3_clientVersion: 80,
    trace_block: 300,
    trace_call: 300,
    trace_callMany: 300,
    trace_filter: 300,
    trace_transaction: 300,
    eth_getFilterChanges: 140,
    eth_getFilterLogs: 255,
    eth_newBlockFilter: 80,
    eth_newFilter: 80,
    eth_uninstallFilter: 80,
    debug_storageRangeAt: 1000,
    debug_traceBlock: 1000,
    debug_traceBlockByHash: 1000,
    debug_traceBlockByNumber: 1000,
    debug_traceCall: 1000,
    debug_traceTransaction: 1000,
  }),
  // Infura's documented fallback for a method its Ethereum table does not list.
  defaultCost: 80,
};

const flat: CuTable = { costs: costTable({}), defaultCost: 1 };

const tables: Readonly<Record<CuTableName, CuTable>> = { alchemy, quicknode, infura, flat };

/** What one call of `method` costs against a `table` provider's per-second budget. */
export function costOf(table: CuTableName, method: string): number {
  const { costs, defaultCost } = tables[table];
  const cost = costs[method];
  return cost === undefined ? defaultCost : cost;
}
