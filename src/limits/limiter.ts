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

export interface RateLimiter {
  /** Atomically: if 1 more request and `computeUnits` more CU fit every limit, count them and allow; else count nothing and refuse. */
  consume(accountId: string, limits: ConsumeLimits, computeUnits: number): Promise<LimitDecision>;
  close(): Promise<void>;
}
