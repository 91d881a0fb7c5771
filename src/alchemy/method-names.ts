import type { ChainConfig } from '../config/chain-settings.ts';

/**
 * Alchemy's enhanced JSON-RPC methods Blockyard answers itself (from its index and its token reads),
 * never forwarded upstream. Any other `alchemy_*` method is outside the allowlist: -32601 naming it.
 */
export const enhancedMethodNames = [
  'alchemy_getAssetTransfers',
  'alchemy_getTokenBalances',
  'alchemy_getTokenMetadata',
  'alchemy_getTokenAllowance',
  'alchemy_getTransactionReceipts',
  'alchemy_simulateAssetChanges',
  'alchemy_simulateAssetChangesBundle',
  'alchemy_simulateExecution',
  'alchemy_simulateExecutionBundle',
  'alchemy_simulateUserOperationAssetChanges',
] as const;

export type EnhancedMethodName = (typeof enhancedMethodNames)[number];

/** Alchemy's NFT API v3 methods, served under the JSON-RPC URL form (src/nfts/alchemy-v3/routes.ts, batch-routes.ts): a key's `methods` can list them. */
export const nftV3MethodNames = [
  'getNFTsForOwner',
  'getContractsForOwner',
  'getNFTMetadata',
  'getNFTMetadataBatch',
  'getContractMetadata',
  'getContractMetadataBatch',
  'getNFTsForContract',
  'getOwnersForNFT',
  'getOwnersForContract',
  'isSpamContract',
  'isHolderOfContract',
  'summarizeNFTAttributes',
  'computeRarity',
  'getSpamContracts',
  'reportSpam',
] as const;

const names = new Set<string>(enhancedMethodNames);

/** The enhanced methods that read the index's large tables: data queries, run one at a time per request and capped per account. */
const dataMethodNames = new Set<string>(['alchemy_getAssetTransfers', 'alchemy_getTokenBalances']);

/**
 * Alchemy's Transaction Simulation methods: they run transactions on the node (eth_simulateV1 or
 * debug_traceCall) and read no index, so they take the node's read scope, `rpc:read`.
 */
const simulationMethodNames = new Set<string>([
  'alchemy_simulateAssetChanges',
  'alchemy_simulateAssetChangesBundle',
  'alchemy_simulateExecution',
  'alchemy_simulateExecutionBundle',
  'alchemy_simulateUserOperationAssetChanges',
]);

export function isSimulationMethod(method: string): boolean {
  return simulationMethodNames.has(method);
}

export function isDataMethod(method: string): boolean {
  return dataMethodNames.has(method);
}

export function isEnhancedMethod(method: string): method is EnhancedMethodName {
  return names.has(method);
}

/**
 * Why the method cannot be served on this network, or undefined when it can: the transfers come only
 * from the chain index, so a network without one has no alchemy_getAssetTransfers.
 */
export function enhancedMethodUnavailable(method: EnhancedMethodName, config: ChainConfig): string | undefined {
  if (method === 'alchemy_getAssetTransfers' && !config.indexer.enabled) {
    return 'it reads the chain index, which is off for this network (indexer.enabled)';
  }
  return undefined;
}
