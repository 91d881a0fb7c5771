import {
  assertComputeUnits,
  assertSomeBudget,
  buildBudgetsDecision,
  buildDecision,
  firstExceeded,
  refusingBudget,
} from './decision.ts';
import type { Budget, BudgetsDecision, ConsumeLimits, LimitDecision, RateLimiter } from './limiter.ts';

/** Counters of one budget (an account, or a key's own: `key:<keyId>`); mutated in place so `consume` allocates nothing but its result. */
interface Counters {
  second: number;
  requests: number;
  computeUnits: number;
  day: number;
  dayRequests: number;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** Budgets (accounts and keys) currently holding counters (for tests and metrics). */
  trackedAccounts(): number;
}

/**
 * How often (seconds) stale accounts are swept. The sweep runs inside `consume` (no timers) and is
 * O(accounts), so once a minute keeps it negligible while bounding memory to the accounts seen in the
 * last minute plus those with a daily count today.
 */
const sweepEveryS = 60;

/**
 * Counters in this process's memory. The check and the count happen synchronously inside `consume`,
 * so it is exact under any concurrency within one process.
 * @example const limiter = createMemoryLimiter(); await limiter.consume('acct_1', { rps: 10, rpd: null, cups: 200 }, 1);
 */
export function createMemoryLimiter(options: { now?: () => number } = {}): MemoryRateLimiter {
  const state: LimiterState = { now: options.now ?? Date.now, accounts: new Map(), nextSweepAt: 0 };
  return {
    consume(accountId, limits, computeUnits) {
      try {
        return Promise.resolve(consumeNow(state, accountId, limits, computeUnits));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    consumeAll(budgets, computeUnits) {
      try {
        return Promise.resolve(consumeAllNow(state, budgets, computeUnits));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    trackedAccounts: () => state.accounts.size,
    close() {
      state.accounts.clear();
      return Promise.resolve();
    },
  };
}

interface LimiterState {
  readonly now: () => number;
  readonly accounts: Map<string, Counters>;
  nextSweepAt: number;
}

function sweep(accounts: Map<string, Counters>, second: number, day: number): void {
  for (const [accountId, c] of accounts) {
    if (c.second < second && (c.day < day || c.dayRequests === 0)) accounts.delete(accountId);
  }
}

function sweepIfDue(state: LimiterState, second: number, day: number): void {
  if (second < state.nextSweepAt) return;
  sweep(state.accounts, second, day);
  state.nextSweepAt = second + sweepEveryS;
}

/** The counters of a budget, their windows moved to `second` and `day`. */
function countersOf(accounts: Map<string, Counters>, id: string, second: number, day: number): Counters {
  let c = accounts.get(id);
  if (c === undefined) {
    c = { second, requests: 0, computeUnits: 0, day, dayRequests: 0 };
    accounts.set(id, c);
  }
  if (c.second !== second) {
    c.second = second;
    c.requests = 0;
    c.computeUnits = 0;
  }
  if (c.day !== day) {
    c.day = day;
    c.dayRequests = 0;
  }
  return c;
}

function count(c: Counters, limits: ConsumeLimits, computeUnits: number): void {
  c.requests += 1;
  c.computeUnits += computeUnits;
  // Unlimited days need no count; skipping it lets the sweep drop the account after a second.
  if (limits.rpd !== null) c.dayRequests += 1;
}

function consumeNow(state: LimiterState, accountId: string, limits: ConsumeLimits, computeUnits: number): LimitDecision {
  assertComputeUnits(computeUnits);
  const nowMs = state.now();
  const second = Math.floor(nowMs / 1000);
  const day = Math.floor(second / 86_400);
  sweepIfDue(state, second, day);
  const c = countersOf(state.accounts, accountId, second, day);
  const exceeded = firstExceeded(limits, c.requests, c.computeUnits, c.dayRequests, computeUnits);
  if (exceeded === undefined) count(c, limits, computeUnits);
  return buildDecision(limits, exceeded, c.requests, c.computeUnits, c.dayRequests, computeUnits, nowMs);
}

function consumeAllNow(state: LimiterState, budgets: readonly Budget[], computeUnits: number): BudgetsDecision {
  assertSomeBudget(budgets);
  assertComputeUnits(computeUnits);
  const nowMs = state.now();
  const second = Math.floor(nowMs / 1000);
  const day = Math.floor(second / 86_400);
  sweepIfDue(state, second, day);
  const counters = budgets.map((budget) => countersOf(state.accounts, budget.id, second, day));
  const exceeded = budgets.map((budget, i) => {
    const c = counters[i]!;
    return firstExceeded(budget.limits, c.requests, c.computeUnits, c.dayRequests, computeUnits);
  });
  const refusedBy = refusingBudget(exceeded);
  if (refusedBy === undefined) {
    for (const [i, budget] of budgets.entries()) count(counters[i]!, budget.limits, computeUnits);
  }
  const counts = counters.map((c, i) => ({
    exceeded: exceeded[i],
    usedRps: c.requests,
    usedCu: c.computeUnits,
    usedDay: c.dayRequests,
  }));
  return buildBudgetsDecision(budgets, counts, refusedBy, computeUnits, nowMs);
}
