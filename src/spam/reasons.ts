/**
 * The reason codes of the spam classification (docs/spam.md). Where Alchemy's NftSpamClassification
 * has a name for what is computed, it is used as is (HighAirdropPercent); the others are Blockyard's.
 */
export const spamReasons = [
  'suspicious_name',
  'url_in_name',
  'airdrop_fanout',
  'scam_bytecode',
  'HighAirdropPercent',
  'operator_deny',
] as const;
export type SpamReason = (typeof spamReasons)[number];

/** How much each reason counts towards the verdict: a contract is spam from 2 on. */
const weights: Record<SpamReason, number> = {
  // An odd name alone is common among old, honest tokens: a hint, not a verdict.
  suspicious_name: 1,
  url_in_name: 2,
  airdrop_fanout: 2,
  scam_bytecode: 2,
  HighAirdropPercent: 2,
  operator_deny: 100,
};

export const spamThreshold = 2;

/** Alchemy's spamConfidenceLevel values, lowest first. */
export const confidenceLevels = ['LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'] as const;
export type ConfidenceLevel = (typeof confidenceLevels)[number];

/** The lowest score of each level: one strong reason is LOW, three are VERY_HIGH. */
const levelFloors: Record<ConfidenceLevel, number> = { LOW: 2, MEDIUM: 3, HIGH: 4, VERY_HIGH: 6 };

export function spamScore(reasons: readonly SpamReason[]): number {
  return [...new Set(reasons)].reduce((sum, reason) => sum + weights[reason], 0);
}

/** The confidence that a contract with this score is spam; null below the spam threshold. */
export function confidenceOf(score: number): ConfidenceLevel | null {
  let level: ConfidenceLevel | null = null;
  for (const candidate of confidenceLevels) if (score >= levelFloors[candidate]) level = candidate;
  return level;
}

/** Whether a contract of `confidence` is excluded by a filter at `level` (a lower level excludes more). */
export function meetsLevel(confidence: ConfidenceLevel | null, level: ConfidenceLevel): boolean {
  return confidence !== null && confidenceLevels.indexOf(confidence) >= confidenceLevels.indexOf(level);
}

export function isSpamReason(value: string): value is SpamReason {
  return (spamReasons as readonly string[]).includes(value);
}
