import { AppError } from '../core/errors.ts';
import type { Database } from '../db/connect.ts';
import type { MailRequestsTable } from '../db/tables/dashboard.ts';

export type MailRequestAction = MailRequestsTable['action'];

/**
 * Sign-ups and password-reset requests (each sends a mail) per hour: per email, so nobody floods an
 * inbox, and per client address, so nobody floods many. The same for a known and an unknown email.
 */
export const mailRequestLimits = { windowMs: 60 * 60 * 1000, perEmail: 5, perIp: 20 } as const;

/**
 * Counted in the database like the sign-in failures, so every API process shares them with or without
 * Redis, over a sliding hour (the rate limiter's windows are a second and a UTC day).
 */
export function createMailRequestLimits(db: Database, now: () => number = Date.now) {
  async function waitFor(action: MailRequestAction, column: 'email' | 'ip', value: string, limit: number): Promise<number> {
    const row = await db
      .selectFrom('mail_requests')
      .select('requested_at')
      .where('action', '=', action)
      .where(column, '=', value)
      .where('requested_at', '>', new Date(now() - mailRequestLimits.windowMs))
      .orderBy('requested_at', 'desc')
      .offset(limit - 1)
      .limit(1)
      .executeTakeFirst();
    if (!row) return 0;
    return Math.max(1, Math.ceil((row.requested_at.getTime() + mailRequestLimits.windowMs - now()) / 1000));
  }

  return {
    /** Counts the request, or refuses it (429 with Retry-After, counting nothing) when the email or the address is at its limit. */
    async take(action: MailRequestAction, email: string, ip: string): Promise<void> {
      const [byEmail, byIp] = await Promise.all([
        waitFor(action, 'email', email, mailRequestLimits.perEmail),
        waitFor(action, 'ip', ip, mailRequestLimits.perIp),
      ]);
      const retryAfter = Math.max(byEmail, byIp);
      if (retryAfter > 0) {
        const what = action === 'signup' ? 'sign-ups' : 'password-reset requests';
        throw new AppError('rate_limited', `too many ${what} for this email or from this address; try again in ${retryAfter} s`, {
          headers: { 'retry-after': String(retryAfter) },
        });
      }
      await db
        .insertInto('mail_requests')
        .values({ action, email, ip, requested_at: new Date(now()) })
        .execute();
    },
  };
}

export type MailRequestLimits = ReturnType<typeof createMailRequestLimits>;
