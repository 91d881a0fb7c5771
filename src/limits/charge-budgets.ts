import type { BudgetsDecision, ConsumeLimits, LimitDecision, LimitName, RateLimiter, WindowState } from './limiter.ts';

/**
 * Charging a request to its account and, when the key has its own limits (issue 24), to the key too:
 * both must have room (the lower wins) and a refusal counts in neither (`RateLimiter.consumeAll`).
 * A `Principal` fits `ChargedBudget`; so does an anonymous `{ accountId: 'ip:…', limits }`.
 */
export interface ChargedBudget {
  readonly accountId: string;
  readonly limits: ConsumeLimits;
  readonly keyId?: string;
  /** The key's own limits; undefined when it has none (then only the account is charged, as before). */
  readonly keyLimits?: ConsumeLimits;
}

/** A decision for the response: per window the budget with fewer remaining; `byKey` when the key's limits refused. */
export type ChargeDecision = LimitDecision & { byKey?: boolean };

const limitNames: Record<LimitName, string> = {
  rps: 'requests per second',
  rpd: 'requests per day',
  cups: 'compute units per second',
};

/** The key's budget id in the limiter (its counters live beside its account's). */
export function keyBudgetId(keyId: string): string {
  return `key:${keyId}`;
}

/** Spends one request and `computeUnits` of the account's budget and, if it has limits, the key's. */
export async function consumeBudgets(limiter: RateLimiter, budget: ChargedBudget, computeUnits: number): Promise<ChargeDecision> {
  // Keys without their own limits (nearly all): one budget, today's path and cost.
  if (budget.keyLimits === undefined || budget.keyId === undefined) {
    return limiter.consume(budget.accountId, budget.limits, computeUnits);
  }
  const decided = await limiter.consumeAll(
    [
      { id: budget.accountId, limits: budget.limits },
      { id: keyBudgetId(budget.keyId), limits: budget.keyLimits },
    ],
    computeUnits,
  );
  return mergeDecisions(decided);
}

/**
 * One decision from the account's (index 0) and the key's (index 1): each window shows the budget with
 * fewer remaining (the account's on a tie or when both are unlimited); the refusal is the refusing budget's.
 */
export function mergeDecisions(decided: BudgetsDecision): ChargeDecision {
  const [account, key] = decided.decisions as [LimitDecision, LimitDecision];
  const merged: ChargeDecision = {
    allowed: decided.allowed,
    rps: tighter(account.rps, key.rps),
    rpd: tighter(account.rpd, key.rpd),
    cups: tighter(account.cups, key.cups),
  };
  if (decided.refusedBy !== undefined) {
    const refusing = decided.decisions[decided.refusedBy]!;
    merged.exceeded = refusing.exceeded;
    merged.retryAfterS = refusing.retryAfterS;
    if (refusing.costExceedsLimit) merged.costExceedsLimit = true;
    merged.byKey = decided.refusedBy === 1;
  }
  return merged;
}

function tighter(account: WindowState, key: WindowState): WindowState {
  if (key.remaining === null) return account;
  if (account.remaining === null || key.remaining < account.remaining) return key;
  return account;
}

/** `rate limit exceeded: requests per second; retry after 1 s`, or `… this key's requests per second …`. */
export function rateLimitMessage(decision: ChargeDecision): string {
  const whose = decision.byKey ? "this key's " : '';
  return `rate limit exceeded: ${whose}${limitNames[decision.exceeded ?? 'rps']}; retry after ${decision.retryAfterS ?? 1} s`;
}

/**
 * The per-second CU budget a cost alone exceeds (it could never pass), and whose it is: the smaller of
 * the account's and the key's (the account's on a tie); undefined when the cost fits both.
 */
export function unpayableCost(computeUnits: number, budget: ChargedBudget): { cups: number; byKey: boolean } | undefined {
  const accountCups = budget.limits.cups;
  const keyCups = budget.keyLimits?.cups ?? null;
  if (keyCups !== null && computeUnits > keyCups && (accountCups === null || keyCups < accountCups)) {
    return { cups: keyCups, byKey: true };
  }
  if (accountCups !== null && computeUnits > accountCups) return { cups: accountCups, byKey: false };
  return undefined;
}
