/** What the pool asks of an upstream's budget (its `rps` / `cu_per_s` and the 429s it answered). */
export interface SpendingBudget {
  /** Whether `calls` calls costing `cu` compute units could go now (no side effect). */
  canSpend(calls: number, cu: number, now: number): boolean;
  /** Takes them from the budget; false when they would overrun it. */
  trySpend(calls: number, cu: number, now: number): boolean;
  /** The node answered 429 or a rate-limit error: nothing is sent for a while, and the rate is tuned down. */
  onRateLimited(now: number, retryAfterMs?: number): void;
  onSuccess(now: number): void;
  /** ms until a call could go again (0: now). */
  msUntilAvailable(now: number): number;
  /** ms left of a back-off after a 429 (0: none). */
  backingOffMs(now: number): number;
  /** The limits in force, for the status page. */
  describe(): { rps: number | null; cuPerS: number | null; tunedRps: number | null };
}

/** An upstream with no limit configured and no 429 seen. */
export const unlimitedBudget: SpendingBudget = {
  canSpend: () => true,
  trySpend: () => true,
  onRateLimited: () => undefined,
  onSuccess: () => undefined,
  msUntilAvailable: () => 0,
  backingOffMs: () => 0,
  describe: () => ({ rps: null, cuPerS: null, tunedRps: null }),
};
