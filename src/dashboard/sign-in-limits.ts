import { AppError } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';

/** Failed sign-ins allowed per window: per email (guessing one password) and per address (trying many emails). */
export const signInLimits = { windowMs: 15 * 60 * 1000, perEmail: 10, perIp: 30 } as const;

type Column = 'email' | 'ip';

/**
 * Counts failed sign-ins in the database, so every API process sees them; the rate limiter's windows
 * (a second, a day) do not fit a 15-minute budget.
 */
export function createSignInLimits(db: Database, now: () => number = Date.now) {
  /** Seconds until the `limit`-th latest failure leaves the window, or 0 when under the limit. */
  async function waitFor(column: Column, value: string, limit: number): Promise<number> {
    const since = new Date(now() - signInLimits.windowMs);
    const row = await db
      .selectFrom('sign_in_failures')
      .select('failed_at')
      .where(column, '=', value)
      .where('failed_at', '>', since)
      .orderBy('failed_at', 'desc')
      .offset(limit - 1)
      .limit(1)
      .executeTakeFirst();
    if (!row) return 0;
    return Math.max(1, Math.ceil((row.failed_at.getTime() + signInLimits.windowMs - now()) / 1000));
  }

  return {
    /** 429 with Retry-After when the email or the address has used up its failures. */
    async assertAllowed(email: string, ip: string): Promise<void> {
      const [byEmail, byIp] = await Promise.all([
        waitFor('email', email, signInLimits.perEmail),
        waitFor('ip', ip, signInLimits.perIp),
      ]);
      const retryAfter = Math.max(byEmail, byIp);
      if (retryAfter > 0) {
        throw new AppError('rate_limited', `too many failed sign-ins; try again in ${retryAfter} s`, {
          headers: { 'retry-after': String(retryAfter) },
        });
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

    /** A successful sign-in forgives the email's failures (which then no longer count against their addresses either). */
    async clearEmail(email: string): Promise<void> {
      await db.deleteFrom('sign_in_failures').where('email', '=', email).execute();
    },
  };
}

export type SignInLimits = ReturnType<typeof createSignInLimits>;
