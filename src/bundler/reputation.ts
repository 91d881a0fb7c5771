/** ERC-7562's reputation constants for unstaked entities. */
export const reputationParams = {
  minInclusionRateDenominator: 10,
  throttlingSlack: 10,
  banSlack: 50,
  /** Pending ops one throttled entity may have in the mempool. */
  throttledEntityMempoolCount: 4,
  /** Pending ops one unstaked sender may have in the mempool. */
  sameSenderMempoolCount: 4,
} as const;

export type ReputationStatus = 'ok' | 'throttled' | 'banned';

/**
 * ERC-7562's status from an entity's counters: ops it was seen in, ops of those that were included.
 * @example reputationStatus(100, 0) // 'ok' (100 / 10 = 10 <= 0 + 10)
 */
export function reputationStatus(opsSeen: number, opsIncluded: number): ReputationStatus {
  const maxSeen = Math.floor(opsSeen / reputationParams.minInclusionRateDenominator);
  if (maxSeen <= opsIncluded + reputationParams.throttlingSlack) return 'ok';
  if (maxSeen <= opsIncluded + reputationParams.banSlack) return 'throttled';
  return 'banned';
}

/** The hourly decay: each counter loses a 24th of itself per hour since it was last updated. */
export function decayed(value: number, hours: number): number {
  let result = value;
  for (let i = 0; i < Math.min(Math.floor(hours), 48); i++) result -= Math.floor(result / 24);
  return result;
}
