import type { LimitDecision } from './limiter.ts';

/**
 * Rate limit response headers of a decision (design.md "Keys, scopes, limits"; docs/compute-units.md
 * "Rate limit headers"). An unlimited (null) limit omits its Limit/Remaining pair, so every header
 * present is always an integer. `X-RateLimit-Reset` (the rps window's end) is always present.
 * Runs on every response: a few string conversions, no loops.
 */
export function rateLimitHeaders(decision: LimitDecision): Record<string, string> {
  const headers: Record<string, string> = { 'X-RateLimit-Reset': String(decision.rps.resetAt) };
  const { rps, rpd, cups } = decision;
  if (rps.limit !== null) {
    headers['X-RateLimit-Limit'] = String(rps.limit);
    headers['X-RateLimit-Remaining'] = String(rps.remaining ?? 0);
  }
  if (rpd.limit !== null) {
    headers['X-RateLimit-Limit-Day'] = String(rpd.limit);
    headers['X-RateLimit-Remaining-Day'] = String(rpd.remaining ?? 0);
  }
  if (cups.limit !== null) {
    headers['X-RateLimit-Limit-CU'] = String(cups.limit);
    headers['X-RateLimit-Remaining-CU'] = String(cups.remaining ?? 0);
  }
  if (!decision.allowed && decision.retryAfterS !== undefined) headers['Retry-After'] = String(decision.retryAfterS);
  return headers;
}
