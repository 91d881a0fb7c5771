/**
 * Compute units of Solana JSON-RPC methods (networks with `kind: solana`), in the same spirit as the
 * EVM table: cheap cluster reads 1, single-account reads 5-10, scans and history heavier, sends 50.
 * Methods not listed cost `defaultSolanaComputeUnits`.
 */
export const defaultSolanaComputeUnits = 20;

export const solanaComputeUnits: Readonly<Record<string, number>> = Object.freeze({
  getHealth: 1,
  getVersion: 1,
  getSlot: 1,
  getBlockHeight: 1,
  getEpochInfo: 1,
  getEpochSchedule: 1,
  getGenesisHash: 1,
  getIdentity: 1,
  getFirstAvailableBlock: 1,
  minimumLedgerSlot: 1,
  getTransactionCount: 1,
  getLatestBlockhash: 5,
  isBlockhashValid: 5,
  getBalance: 5,
  getAccountInfo: 10,
  getTokenAccountBalance: 10,
  getTokenSupply: 10,
  getMinimumBalanceForRentExemption: 5,
  getFeeForMessage: 10,
  getSignatureStatuses: 10,
  getRecentPrioritizationFees: 10,
  getRecentPerformanceSamples: 10,
  getBlockTime: 10,
  getSlotLeader: 5,
  getSlotLeaders: 10,
  getStakeMinimumDelegation: 5,
  getSupply: 20,
  getInflationGovernor: 5,
  getInflationRate: 5,
  getInflationReward: 30,
  getMultipleAccounts: 20,
  getTransaction: 20,
  getSignaturesForAddress: 30,
  getTokenAccountsByOwner: 50,
  getTokenAccountsByDelegate: 50,
  getTokenLargestAccounts: 50,
  getLargestAccounts: 100,
  getBlock: 50,
  getBlocks: 20,
  getBlocksWithLimit: 20,
  getBlockCommitment: 10,
  getBlockProduction: 20,
  getClusterNodes: 10,
  getVoteAccounts: 20,
  getLeaderSchedule: 20,
  getHighestSnapshotSlot: 1,
  getMaxRetransmitSlot: 1,
  getMaxShredInsertSlot: 1,
  getProgramAccounts: 100,
  simulateTransaction: 50,
  sendTransaction: 50,
  requestAirdrop: 10,
});

/** Solana methods that change state: gated by `rpc:write`. */
export const solanaWriteMethods: ReadonlySet<string> = new Set(['sendTransaction', 'requestAirdrop']);

export function solanaComputeUnitsFor(method: string): number {
  return Object.hasOwn(solanaComputeUnits, method) ? solanaComputeUnits[method]! : defaultSolanaComputeUnits;
}
