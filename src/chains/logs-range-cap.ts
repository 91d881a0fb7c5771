import type { PooledUpstream } from './pooled-upstream.ts';

/**
 * The block-range cap a provider states in its own error words, when it states one: "up to a 2K block
 * range" (Alchemy), "limited to a 10,000 range" (QuickNode), "exceed maximum block range: 5000",
 * "block range is too wide, max 3000", "Max range: 800", "maximum [from, to] blocks distance: 3000" (Ankr). Result-count caps ("more than 10000 results")
 * depend on the query, not the range: none is learnt from them.
 */
export function rangeCapIn(message: string): number | undefined {
  for (const pattern of capPatterns) {
    const match = pattern.exec(message);
    if (match === null) continue;
    const value = Number(match[1]!.replace(/,/g, '')) * (match[2]?.toLowerCase() === 'k' ? 1000 : 1);
    if (Number.isSafeInteger(value) && value > 0) return value;
  }
  return undefined;
}

const capPatterns = [
  /up to an? ([\d,]+)\s*(k)?\s*block range/i,
  /limited to an? ([\d,]+)\s*(k)?\s*(?:blocks? )?range/i,
  /(?:maximum|max)\.?\s*(?:block\s*)?range(?:\s*(?:is|of|allowed))?\s*[:=]?\s*([\d,]+)\s*(k)?/i,
  /block range[^\d]{0,40}(?:max(?:imum)?|limit|up to)[^\d]{0,20}([\d,]+)\s*(k)?/i,
  /range (?:is )?too (?:large|wide|big)[^\d]{0,20}(?:max(?:imum)?|limit)[^\d]{0,12}([\d,]+)\s*(k)?/i,
  /([\d,]+)\s*(k)?\s*blocks? (?:range )?(?:max|limit)/i,
  /blocks? distance\s*[:=]?\s*([\d,]+)\s*(k)?/i,
  /exceeds? (?:the )?limit of ([\d,]+)()/i,
];

/**
 * Records the cap an upstream's "range too large" answer states. A cap on results or response size
 * teaches nothing about ranges: the splitter halves that request and the cap stays as it was.
 */
export function learnRangeCap(upstream: PooledUpstream, message: string): void {
  const stated = rangeCapIn(message);
  if (stated !== undefined && stated < upstream.logsRangeCap) upstream.logsRangeCap = stated;
}
