import { type ConfidenceLevel, confidenceOf, type SpamReason, spamScore, spamThreshold } from './reasons.ts';

/** What the answers carry about a contract. */
export interface SpamFlags {
  readonly is_spam: boolean;
  /** Every reason found; with `is_spam` false these are hints below the threshold (or an allowed contract's findings). */
  readonly spam_reasons: SpamReason[];
  /** Null when not spam. */
  readonly confidence: ConfidenceLevel | null;
}

export type ListVerdict = 'allow' | 'deny' | undefined;

export const notSpam: SpamFlags = { is_spam: false, spam_reasons: [], confidence: null };

/**
 * The verdict on a contract: an operator's deny list makes it spam (VERY_HIGH), an allow list makes
 * it not spam whatever the heuristics found, else the heuristics' score decides.
 */
export function spamVerdict(found: readonly SpamReason[], list: ListVerdict): SpamFlags {
  const reasons = [...new Set(found)];
  if (list === 'deny') return { is_spam: true, spam_reasons: ['operator_deny', ...reasons], confidence: 'VERY_HIGH' };
  if (list === 'allow') return { is_spam: false, spam_reasons: reasons, confidence: null };
  const score = spamScore(reasons);
  return score >= spamThreshold
    ? { is_spam: true, spam_reasons: reasons, confidence: confidenceOf(score) }
    : { is_spam: false, spam_reasons: reasons, confidence: null };
}
