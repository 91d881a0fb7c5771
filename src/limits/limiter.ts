import type { AccountLimits } from './plans.ts';

/**
 * The rate limiter contract. Windows: one second aligned to Unix seconds for rps and cups, the UTC day
 * for rpd. A refused request counts nothing. Implementations: `memory-limiter.ts` (one process) and
 * `redis-limiter.ts` (exact across processes); config picks one.
 */
export type LimitName = 'rps' | 'rpd' | 'cups';

export interface WindowState {
  /** The limit of this window; null = unlimited. */
  limit: number | null;
  /** What is left in this window after this decision; null when unlimited. */
  remaining: number | null;
  /** Unix seconds at which this window ends. */
  resetAt: number;
}

export interface LimitDecision {
  allowed: boolean;
  /** Which limit refused: the first of rps, cups, rpd that would be exceeded. */
  exceeded?: LimitName;
  /** Whole seconds >= 1, only when refused: 1 for rps/cups, seconds until the next UTC midnight for rpd. */
  retryAfterS?: number;
  /** The request's compute units alone exceed the per-second CU limit: it can never pass. */
  costExceedsLimit?: boolean;
  rps: WindowState;
  rpd: WindowState;
  cups: WindowState;
}

export type ConsumeLimits = Pick<AccountLimits, 'rps' | 'rpd' | 'cups'>;

/** One budget of a request: the account's (id = account id) or a key's own (id `key:<keyId>`). */
export interface Budget {
  readonly id: string;
  readonly limits: ConsumeLimits;
}

export interface BudgetsDecision {
  /** True only when every budget had room (then each was counted; otherwise none was). */
  allowed: boolean;
  /** One per budget, in the order given; each as if alone, from the counts after this call. */
  decisions: LimitDecision[];
  /** Index of the budget that refused: of those that would, the longest Retry-After, the first on a tie. */
  refusedBy?: number;
}

export interface RateLimiter {
  /** Atomically: if 1 more request and `computeUnits` more CU fit every limit, count them and allow; else count nothing and refuse. */
  consume(accountId: string, limits: ConsumeLimits, computeUnits: number): Promise<LimitDecision>;
  /**
   * `consume` over several budgets at once, atomically: the request is counted in all of them when
   * every one has room, else in none. The first budget anchors the others' storage (Redis keys share
   * its hash tag), so a budget must always be consumed behind the same first one (a key's behind its account's).
   */
  consumeAll(budgets: readonly Budget[], computeUnits: number): Promise<BudgetsDecision>;
  close(): Promise<void>;
}
