import type { Database } from '../db/connect.ts';
import type { UserTokensTable } from '../db/tables/dashboard.ts';
import { hashSecretToken, newSecretToken } from './secret-token.ts';

export type UserTokenPurpose = UserTokensTable['purpose'];

/** Single-use tokens of a user: password reset links and one-time sign-in links (SQL only). */
export function createUserTokenStore(db: Database, now: () => number = Date.now) {
  return {
    /** A new token, valid for `ttlMs`; only its hash is stored. */
    async create(userId: string, purpose: UserTokenPurpose, ttlMs: number): Promise<string> {
      const token = newSecretToken();
      await db
        .insertInto('user_tokens')
        .values({ token_hash: hashSecretToken(token), user_id: userId, purpose, expires_at: new Date(now() + ttlMs) })
        .execute();
      return token;
    },

    /** Whether `consume` would take the token now, without using it up (a HEAD request of a link). */
    async isUsable(token: string, purpose: UserTokenPurpose): Promise<boolean> {
      const row = await db
        .selectFrom('user_tokens')
        .select('user_id')
        .where('token_hash', '=', hashSecretToken(token))
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', new Date(now()))
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Marks the token used and returns its user; undefined for an unknown, used or expired token. */
    async consume(token: string, purpose: UserTokenPurpose): Promise<string | undefined> {
      const at = new Date(now());
      const row = await db
        .updateTable('user_tokens')
        .set({ used_at: at })
        .where('token_hash', '=', hashSecretToken(token))
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .returning('user_id')
        .executeTakeFirst();
      return row?.user_id;
    },
  };
}

export type UserTokenStore = ReturnType<typeof createUserTokenStore>;
