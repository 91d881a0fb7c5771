import { AppError } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';

/**
 * Failed sign-ins allowed per 15-minute window. No count is per email alone, so nobody can lock a user
 * out by failing on their email from elsewhere:
 * - `perEmailAndIp`: one address guessing one account's password;
 * - `perIp`: one address trying many accounts;
 * - `perEmail`: many addresses against one account. Past it, only the addresses that already failed on
 *   that account wait; an address that has not failed still signs in with the right password, and any
 *   address can sign in through a password-reset link.
 */
export const signInLimits = { windowMs: 15 * 60 * 1000, perEmailAndIp: 10, perIp: 30, perEmail: 100 } as const;

interface FailureFilter {
  email?: string;
  ip?: string;
}

/**
 * Counts failed sign-ins in the database, so every API process sees them; the rate limiter's windows
 * (a second, a day) do not fit a 15-minute budget.
 */
export function createSignInLimits(db: Database, now: () => number = Date.now) {
  /** Seconds until the `limit`-th latest matching failure leaves the window, or 0 when under the limit. */
  async function waitFor(filter: FailureFilter, limit: number): Promise<number> {
    const since = new Date(now() - signInLimits.windowMs);
    let query = db.selectFrom('sign_in_failures').select('failed_at').where('failed_at', '>', since);
    if (filter.email !== undefined) query = query.where('email', '=', filter.email);
    if (filter.ip !== undefined) query = query.where('ip', '=', filter.ip);
    const row = await query
      .orderBy('failed_at', 'desc')
      .offset(limit - 1)
      .limit(1)
      .executeTakeFirst();
    if (!row) return 0;
    return Math.max(1, Math.ceil((row.failed_at.getTime() + signInLimits.windowMs - now()) / 1000));
  }

  function refuse(retryAfter: number, why: string): never {
    throw new AppError('rate_limited', `${why}; try again in ${retryAfter} s`, {
      headers: { 'retry-after': String(retryAfter) },
    });
  }

  return {
    /** 429 with Retry-After when this address has used up its failures (on this email, or on all). */
    async assertAllowed(email: string, ip: string): Promise<void> {
      const [byPair, byIp, byEmail, pairHasFailed] = await Promise.all([
        waitFor({ email, ip }, signInLimits.perEmailAndIp),
        waitFor({ ip }, signInLimits.perIp),
        waitFor({ email }, signInLimits.perEmail),
        waitFor({ email, ip }, 1),
      ]);
      const own = Math.max(byPair, byIp);
      if (own > 0) refuse(own, 'too many failed sign-ins from this address');
      if (byEmail > 0 && pairHasFailed > 0) {
        refuse(
          Math.min(byEmail, pairHasFailed),
          'too many failed sign-ins on this email from many addresses, this one included; a password-reset link signs in at once',
        );
      }
    },

    async recordFailure(email: string, ip: string): Promise<void> {
      const at = new Date(now());
      await db.insertInto('sign_in_failures').values({ email, ip, failed_at: at }).execute();
      const before = new Date(at.getTime() - signInLimits.windowMs);
      await db
        .deleteFrom('sign_in_failures')
        .where('failed_at', '<', before)
        .where((eb) => eb.or([eb('email', '=', email), eb('ip', '=', ip)]))
        .execute();
    },

    /**
     * A successful sign-in forgives this address's failures on this email only: failures on it from
     * other addresses (an attacker's) keep counting against those addresses.
     */
    async clearAddress(email: string, ip: string): Promise<void> {
      await db.deleteFrom('sign_in_failures').where('email', '=', email).where('ip', '=', ip).execute();
    },
  };
}

export type SignInLimits = ReturnType<typeof createSignInLimits>;
