/** An op the EntryPoint refused while a bundle was built, as the reputation rules see it. */
export interface BundleRefusal {
  /** The EntryPoint's reason (`AA23 reverted`, `AA31 paymaster deposit too low`, …). */
  reason: string;
  /** It fails by itself too (a second validation would refuse it), not only beside the bundle's other ops. */
  refusedAlone: boolean;
  sender: string;
  factory: string | null;
  paymaster: string | null;
  staked: { sender: boolean; factory: boolean };
  /** ERC-7562's rules are held (safe mode): without them ops may touch each other's state, and nobody is banned for it. */
  safeMode: boolean;
}

/** What the refusal does to reputations: entities whose "seen" count is taken back, and one banned. */
export interface ReputationChange {
  unsee: string[];
  crashed?: string;
}

/**
 * ERC-7562's reputation rules for an op refused while a bundle is built. One that fails by itself
 * (the chain changed under it) bans nobody: a paymaster is not charged with its account's or
 * factory's failure (EREP-015), nor with its own when the account is staked (EREP-030: the staked
 * account is accountable). One that passes alone but fails in the bundle broke the bundle: the
 * entity at fault is banned, as the reference bundler's crashedHandleOps does (seen 10,000,
 * included 0): the factory for AA1x, a staked factory for its account's AA2x (EREP-020), else the
 * sender; for AA3x the staked sender (EREP-030), else the paymaster. Not for want of funds (AA21, AA31:
 * ops each affordable alone, not together, are no one's misconduct) nor in unsafe mode.
 */
export function reputationAfterRefusal(refusal: BundleRefusal): ReputationChange {
  const { reason, sender, factory, paymaster, staked } = refusal;
  const stage = /^AA([123])/.exec(reason)?.[1];
  if (refusal.refusedAlone) {
    const paymasterExcused = stage === '1' || stage === '2' || (stage === '3' && staked.sender);
    return { unsee: paymasterExcused && paymaster ? [paymaster] : [] };
  }
  if (!refusal.safeMode || /^AA(21|31)/.test(reason)) return { unsee: [] };
  if (stage === '1') return { unsee: [], crashed: factory ?? sender };
  if (stage === '2') return { unsee: [], crashed: factory && staked.factory ? factory : sender };
  if (stage === '3') return { unsee: [], crashed: staked.sender ? sender : (paymaster ?? sender) };
  return { unsee: [] };
}
