import type { Logger } from 'pino';
import type { Database } from '../db/connect.ts';
import { deleteExpiredIdempotencyKeys } from '../http/idempotency/idempotency-store.ts';
import { mailRequestLimits } from './mail-request-limits.ts';
import { signInLimits } from './sign-in-limits.ts';

/** Often enough that the tables stay small, rarely enough to cost nothing: one indexed delete each. */
const sweepEveryMs = 15 * 60 * 1000;

export interface ExpiredRowsSweeper {
  /** Deletes what has expired now; how many rows of each kind. */
  sweepNow(): Promise<{
    sessions: number;
    tokens: number;
    signInFailures: number;
    verifications: number;
    mailRequests: number;
    idempotencyKeys: number;
  }>;
  close(): Promise<void>;
}

/**
 * Deletes the dashboard's expired rows: sessions past their idle expiry (a session is otherwise only
 * deleted when its cookie comes back), one-time tokens (password reset, sign-in links) and email
 * verifications past theirs, sign-in failures and mail requests older than their limits' windows, and
 * Idempotency-Key answers past their 24 h. Every API process may run it: the deletes are idempotent.
 */
export function startExpiredRowsSweeper(deps: { db: Database; logger: Logger; now?: () => number }): ExpiredRowsSweeper {
  const { db, logger } = deps;
  const now = deps.now ?? Date.now;
  let running: Promise<unknown> | undefined;

  const sweepNow: ExpiredRowsSweeper['sweepNow'] = async () => {
    const at = new Date(now());
    const [sessions, tokens, signInFailures, verifications, mailRequests, idempotencyKeys] = await Promise.all([
      db.deleteFrom('sessions').where('expires_at', '<=', at).executeTakeFirst(),
      db.deleteFrom('user_tokens').where('expires_at', '<=', at).executeTakeFirst(),
      db
        .deleteFrom('sign_in_failures')
        .where('failed_at', '<', new Date(at.getTime() - signInLimits.windowMs))
        .executeTakeFirst(),
      db.deleteFrom('email_verifications').where('expires_at', '<=', at).executeTakeFirst(),
      db
        .deleteFrom('mail_requests')
        .where('requested_at', '<', new Date(at.getTime() - mailRequestLimits.windowMs))
        .executeTakeFirst(),
      deleteExpiredIdempotencyKeys(db, at),
    ]);
    return {
      sessions: Number(sessions.numDeletedRows),
      tokens: Number(tokens.numDeletedRows),
      signInFailures: Number(signInFailures.numDeletedRows),
      verifications: Number(verifications.numDeletedRows),
      mailRequests: Number(mailRequests.numDeletedRows),
      idempotencyKeys,
    };
  };

  const timer = setInterval(() => {
    if (running) return;
    running = sweepNow()
      .then((deleted) => logger.debug({ deleted }, 'expired dashboard rows deleted'))
      .catch((error: unknown) => logger.warn({ err: error }, 'could not delete expired dashboard rows; retrying later'))
      .finally(() => {
        running = undefined;
      });
  }, sweepEveryMs);
  timer.unref();

  return {
    sweepNow,
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
