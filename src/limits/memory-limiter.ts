import { assertComputeUnits, buildDecision, firstExceeded } from './decision.ts';
import type { ConsumeLimits, LimitDecision, RateLimiter } from './limiter.ts';

/** Counters of one account; mutated in place so `consume` allocates nothing but its result. */
interface Counters {
  second: number;
  requests: number;
  computeUnits: number;
  day: number;
  dayRequests: number;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** Accounts currently holding counters (for tests and metrics). */
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
  const now = options.now ?? Date.now;
  const accounts = new Map<string, Counters>();
  let nextSweepAt = 0;

  function sweep(second: number, day: number): void {
    for (const [accountId, c] of accounts) {
      if (c.second < second && (c.day < day || c.dayRequests === 0)) accounts.delete(accountId);
    }
  }

  function consumeNow(accountId: string, limits: ConsumeLimits, computeUnits: number): LimitDecision {
    assertComputeUnits(computeUnits);
    const nowMs = now();
    const second = Math.floor(nowMs / 1000);
    const day = Math.floor(second / 86_400);
    if (second >= nextSweepAt) {
      sweep(second, day);
      nextSweepAt = second + sweepEveryS;
    }

    let c = accounts.get(accountId);
    if (c === undefined) {
      c = { second, requests: 0, computeUnits: 0, day, dayRequests: 0 };
      accounts.set(accountId, c);
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

    const exceeded = firstExceeded(limits, c.requests, c.computeUnits, c.dayRequests, computeUnits);
    if (exceeded === undefined) {
      c.requests += 1;
      c.computeUnits += computeUnits;
      // Unlimited days need no count; skipping it lets the sweep drop the account after a second.
      if (limits.rpd !== null) c.dayRequests += 1;
    }
    return buildDecision(limits, exceeded, c.requests, c.computeUnits, c.dayRequests, computeUnits, nowMs);
  }

  return {
    consume(accountId, limits, computeUnits) {
      try {
        return Promise.resolve(consumeNow(accountId, limits, computeUnits));
      } catch (error) {
        return Promise.reject(error);
      }
    },
    trackedAccounts: () => accounts.size,
    close() {
      accounts.clear();
      return Promise.resolve();
    },
  };
}
