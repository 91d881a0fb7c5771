import { AppError } from '../core/errors.ts';
import { costExceedsBudget } from '../limits/decision.ts';
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
 * limit is hit. A request whose cost alone exceeds the per-second CU budget can never pass: it counts
 * as one request of 0 CU and is a 400 naming the cost and the budget (`costParameter`, e.g. `batch`,
 * is the parameter the message names), not a 429 a client would retry forever.
 */
export async function chargeRequest(
  deps: { limiter: RateLimiter; metrics: Metrics },
  reply: HeaderSink,
  budget: { accountId: string; limits: Pick<AccountLimits, 'rps' | 'rpd' | 'cups'> },
  computeUnits: number,
  costParameter?: string,
): Promise<void> {
  const overBudget = costExceedsBudget(computeUnits, budget.limits);
  const decision = await deps.limiter.consume(budget.accountId, budget.limits, overBudget ? 0 : computeUnits);
  reply.headers(rateLimitHeaders(decision));
  if (decision.allowed) {
    if (overBudget) throw costOverBudget(computeUnits, budget.limits.cups!, costParameter);
    return;
  }
  const exceeded = decision.exceeded ?? 'rps';
  deps.metrics.rateLimited.inc({ limit: exceeded });
  const message = `rate limit exceeded: ${limitNames[exceeded]}; retry after ${decision.retryAfterS ?? 1} s`;
  throw new AppError('rate_limited', message, { headers: { 'retry-after': String(decision.retryAfterS ?? 1) } });
}

/** The 400 of a request that costs more than the plan allows per second. */
function costOverBudget(computeUnits: number, budget: number, parameter: string | undefined): AppError {
  const what = parameter === undefined ? 'this request' : `invalid parameter '${parameter}': this request`;
  return new AppError(
    'invalid_request',
    `${what} costs ${computeUnits} compute units, more than the ${budget} the plan allows per second, so it can never pass; split it into smaller requests`,
  );
}
