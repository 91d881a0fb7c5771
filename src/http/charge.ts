import { AppError } from '../core/errors.ts';
import { rateLimitHeaders } from '../limits/headers.ts';
import type { LimitName, RateLimiter } from '../limits/limiter.ts';
import type { AccountLimits } from '../limits/plans.ts';
import type { Metrics } from '../observability/metrics.ts';

/** Where response headers go: a Fastify reply, or the JSON-RPC fast path's response. */
export interface HeaderSink {
  headers(values: Record<string, string>): unknown;
}

const limitNames: Record<LimitName, string> = {
  rps: 'requests per second',
  rpd: 'requests per day',
  cups: 'compute units per second',
};

/**
 * Spends one request and `computeUnits` of the account's budget, puts the rate limit headers on the
 * reply (they stay on whatever answer follows, errors included) and throws `rate_limited` when a
 * limit is hit.
 */
export async function chargeRequest(
  deps: { limiter: RateLimiter; metrics: Metrics },
  reply: HeaderSink,
  budget: { accountId: string; limits: Pick<AccountLimits, 'rps' | 'rpd' | 'cups'> },
  computeUnits: number,
): Promise<void> {
  const decision = await deps.limiter.consume(budget.accountId, budget.limits, computeUnits);
  reply.headers(rateLimitHeaders(decision));
  if (decision.allowed) return;
  const exceeded = decision.exceeded ?? 'rps';
  deps.metrics.rateLimited.inc({ limit: exceeded });
  const message = decision.costExceedsLimit
    ? `this request costs ${computeUnits} compute units, more than the plan allows per second (${decision.cups.limit}); split it`
    : `rate limit exceeded: ${limitNames[exceeded]}; retry after ${decision.retryAfterS ?? 1} s`;
  throw new AppError('rate_limited', message, { headers: { 'retry-after': String(decision.retryAfterS ?? 1) } });
}
