import type { Hex } from 'viem';
import type { Verdict } from './contract.ts';

/** Listing more than this many ops by hash helps no one: the rest are counted. */
const listedOps = 5;

/** Every accepted op landed, and no op of ours landed more than once (the chain's UserOperationEvent logs). */
export function checkOps(
  sent: { accepted: ReadonlySet<Hex>; attempted: ReadonlySet<Hex>; refused(): number },
  landed: ReadonlyMap<Hex, number>,
  revertedBundles: number,
  planned: number,
): { totals: Verdict['ops']; violations: string[] } {
  const { accepted, attempted } = sent;
  const violations: string[] = [];
  if (planned > 0 && accepted.size === 0) violations.push(`ops: none was accepted (${sent.refused()} refused)`);
  const twice = [...attempted].filter((hash) => (landed.get(hash) ?? 0) > 1);
  for (const hash of twice.slice(0, listedOps)) violations.push(`op ${hash} landed ${landed.get(hash)} times`);
  if (twice.length > listedOps) violations.push(`${twice.length - listedOps} more ops landed more than once`);
  const notLanded = [...accepted].filter((hash) => !landed.has(hash));
  for (const hash of notLanded.slice(0, listedOps)) violations.push(`op ${hash} was accepted and never landed`);
  if (notLanded.length > listedOps) violations.push(`${notLanded.length - listedOps} more accepted ops never landed`);
  // A bundle holding an op that another bundle already landed reverts whole (AA25): two executors sending
  // the same op, or one sending without simulating, shows here even when the op itself landed once.
  if (revertedBundles > 0) violations.push(`${revertedBundles} handleOps transactions reverted on chain`);
  const landedCount = [...accepted].filter((hash) => landed.has(hash)).length;
  return {
    totals: { accepted: accepted.size, landed: landedCount, twice: twice.length, revertedBundles, refused: sent.refused() },
    violations,
  };
}

/** No rate-limit window (one Redis-clock second) accepted more than the plan's limit, across both APIs. */
export function checkLimit(
  acceptedByWindow: ReadonlyMap<number, number>,
  limit: number,
  badAnswers: ReadonlyMap<string, number>,
  unwindowed: number,
): { totals: Verdict['limit']; violations: string[] } {
  const violations: string[] = [];
  let max = 0;
  for (const [window, accepted] of [...acceptedByWindow].sort(([a], [b]) => a - b)) {
    max = Math.max(max, accepted);
    if (accepted > limit) violations.push(`window ${window - 1}: ${accepted} accepted > ${limit}`);
  }
  for (const [where, count] of badAnswers) {
    violations.push(`rate-limit probe, ${where}: ${count} answers that break the error contract`);
  }
  if (unwindowed > 0) violations.push(`rate-limit probe: ${unwindowed} accepted answers named no rate-limit window`);
  return { totals: { limit, maxAcceptedInAWindow: max, windows: acceptedByWindow.size }, violations };
}
