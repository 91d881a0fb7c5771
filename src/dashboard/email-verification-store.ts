import type { Database } from '../db/connect.ts';
import type { EmailVerificationsTable } from '../db/tables/dashboard.ts';
import { hashSecretToken, newSecretToken } from './secret-token.ts';

/** How long a verification link works. */
export const emailVerificationTtlMs = 24 * 60 * 60 * 1000;

export interface PendingVerification {
  purpose: EmailVerificationsTable['purpose'];
  email: string;
  passwordHash?: string;
  accountName?: string;
  invitationId?: string;
  userId?: string;
}

/** Sign-ups and invitation acceptances waiting for their mailed link (SQL only); only a token's hash is stored. */
export function createEmailVerificationStore(db: Database, now: () => number = Date.now) {
  return {
    async create(pending: PendingVerification): Promise<string> {
      const token = newSecretToken();
      await db
        .insertInto('email_verifications')
        .values({
          token_hash: hashSecretToken(token),
          purpose: pending.purpose,
          email: pending.email.toLowerCase(),
          password_hash: pending.passwordHash ?? null,
          account_name: pending.accountName ?? null,
          invitation_id: pending.invitationId ?? null,
          user_id: pending.userId ?? null,
          expires_at: new Date(now() + emailVerificationTtlMs),
        })
        .execute();
      return token;
    },

    /** Marks the link used and returns what it was for; undefined for an unknown, used or expired one. */
    async consume(token: string) {
      const at = new Date(now());
      return db
        .updateTable('email_verifications')
        .set({ used_at: at })
        .where('token_hash', '=', hashSecretToken(token))
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .returningAll()
        .executeTakeFirst();
    },
  };
}

export type EmailVerificationStore = ReturnType<typeof createEmailVerificationStore>;
