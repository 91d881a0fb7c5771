import type { Budget, BudgetsDecision, ConsumeLimits, LimitDecision, LimitName } from './limiter.ts';

/**
 * The one place that turns window counts into a `LimitDecision`, so the memory and Redis limiters
 * cannot disagree on order (rps, cups, rpd), remaining values or Retry-After.
 */

/** Whole seconds (>= 1) from `nowMs` until the next UTC midnight. */
export function secondsUntilNextUtcDay(nowMs: number): number {
  const nextDayMs = (Math.floor(nowMs / 86_400_000) + 1) * 86_400_000;
  return Math.max(1, Math.ceil((nextDayMs - nowMs) / 1000));
}

/** Rejects a `consumeAll` with nothing to charge. */
export function assertSomeBudget(budgets: readonly unknown[]): void {
  if (budgets.length === 0) throw new RangeError('consumeAll needs at least one budget');
}

/** Rejects what no limiter can count: CU must be a finite number >= 0. */
export function assertComputeUnits(computeUnits: number): void {
  if (!(computeUnits >= 0 && Number.isFinite(computeUnits))) {
    throw new RangeError(`computeUnits must be a finite number >= 0, got ${computeUnits}`);
  }
}

/** Which limit would refuse 1 more request and `cu` more CU, in the contract's order; undefined if all fit. */
export function firstExceeded(
  limits: ConsumeLimits,
  usedRps: number,
  usedCu: number,
  usedDay: number,
  cu: number,
): LimitName | undefined {
  if (limits.rps !== null && usedRps + 1 > limits.rps) return 'rps';
  if (limits.cups !== null && usedCu + cu > limits.cups) return 'cups';
  if (limits.rpd !== null && usedDay + 1 > limits.rpd) return 'rpd';
  return undefined;
}

/**
 * Builds the decision from the counts after this call (counted when allowed, untouched when refused).
 * `nowMs` is the clock the windows were taken from.
 */
export function buildDecision(
  limits: ConsumeLimits,
  exceeded: LimitName | undefined,
  usedRps: number,
  usedCu: number,
  usedDay: number,
  cu: number,
  nowMs: number,
): LimitDecision {
  const second = Math.floor(nowMs / 1000);
  const secondReset = second + 1;
  const dayReset = (Math.floor(second / 86_400) + 1) * 86_400;
  const decision: LimitDecision = {
    allowed: exceeded === undefined,
    rps: { limit: limits.rps, remaining: limits.rps === null ? null : Math.max(0, limits.rps - usedRps), resetAt: secondReset },
    rpd: { limit: limits.rpd, remaining: limits.rpd === null ? null : Math.max(0, limits.rpd - usedDay), resetAt: dayReset },
    cups: {
      limit: limits.cups,
      remaining: limits.cups === null ? null : Math.max(0, limits.cups - usedCu),
      resetAt: secondReset,
    },
  };
  if (exceeded !== undefined) {
    decision.exceeded = exceeded;
    decision.retryAfterS = exceeded === 'rpd' ? secondsUntilNextUtcDay(nowMs) : 1;
    if (limits.cups !== null && cu > limits.cups) decision.costExceedsLimit = true;
  }
  return decision;
}

/**
 * Which of several budgets refuses (`BudgetsDecision.refusedBy`), from each one's `firstExceeded`:
 * a daily refusal (Retry-After until midnight) outweighs a per-second one; the first on a tie.
 */
export function refusingBudget(exceeded: readonly (LimitName | undefined)[]): number | undefined {
  const daily = exceeded.indexOf('rpd');
  if (daily >= 0) return daily;
  const any = exceeded.findIndex((name) => name !== undefined);
  return any >= 0 ? any : undefined;
}

/** Per-budget counts after the call (counted when all had room, untouched otherwise). */
export interface BudgetCounts {
  exceeded: LimitName | undefined;
  usedRps: number;
  usedCu: number;
  usedDay: number;
}

/** The decision over several budgets; shared by both limiters like `buildDecision`. */
export function buildBudgetsDecision(
  budgets: readonly Budget[],
  counts: readonly BudgetCounts[],
  refusedBy: number | undefined,
  cu: number,
  nowMs: number,
): BudgetsDecision {
  const decisions = budgets.map((budget, i) => {
    const c = counts[i]!;
    return buildDecision(budget.limits, c.exceeded, c.usedRps, c.usedCu, c.usedDay, cu, nowMs);
  });
  return refusedBy === undefined ? { allowed: true, decisions } : { allowed: false, decisions, refusedBy };
}
