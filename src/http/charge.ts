import { AppError } from '../core/errors.ts';
import { type ChargedBudget, consumeBudgets, rateLimitMessage, unpayableCost } from '../limits/charge-budgets.ts';
import { rateLimitHeaders } from '../limits/headers.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';

/** Where response headers go: a Fastify reply, or the JSON-RPC fast path's response. */
export interface HeaderSink {
  headers(values: Record<string, string>): unknown;
}

/**
 * Spends one request and `computeUnits` of the account's budget (and of the key's own, when it has
 * limits: both must have room), puts the rate limit headers on the reply (they stay on whatever
 * answer follows, errors included) and throws `rate_limited` when a limit is hit. A request whose cost
 * alone exceeds the per-second CU budget can never pass: it counts as one request of 0 CU and is a 400
 * naming the cost and the budget (`costParameter`, e.g. `batch`, is the parameter the message names),
 * not a 429 a client would retry forever.
 */
export async function chargeRequest(
  deps: { limiter: RateLimiter; metrics: Metrics },
  reply: HeaderSink,
  budget: ChargedBudget,
  computeUnits: number,
  costParameter?: string,
): Promise<void> {
  const unpayable = unpayableCost(computeUnits, budget);
  const decision = await consumeBudgets(deps.limiter, budget, unpayable ? 0 : computeUnits);
  reply.headers(rateLimitHeaders(decision));
  if (decision.allowed) {
    if (unpayable) throw costOverBudget(computeUnits, unpayable, costParameter);
    return;
  }
  deps.metrics.rateLimited.inc({ limit: decision.exceeded ?? 'rps' });
  throw new AppError('rate_limited', rateLimitMessage(decision), {
    headers: { 'retry-after': String(decision.retryAfterS ?? 1) },
  });
}

/** The 400 of a request that costs more than the plan (or the key) allows per second. */
function costOverBudget(computeUnits: number, budget: { cups: number; byKey: boolean }, parameter: string | undefined): AppError {
  const what = parameter === undefined ? 'this request' : `invalid parameter '${parameter}': this request`;
  const whose = budget.byKey ? 'this key' : 'the plan';
  return new AppError(
    'invalid_request',
    `${what} costs ${computeUnits} compute units, more than the ${budget.cups} ${whose} allows per second, so it can never pass; split it into smaller requests`,
  );
}
