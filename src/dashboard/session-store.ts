import type { Database } from '../db/connect.ts';
import type { SessionRow } from '../db/tables/dashboard.ts';
import { hashSecretToken, newSecretToken } from './secret-token.ts';

/** Idle expiry: a session unused this long ends. */
export const sessionIdleMs = 7 * 24 * 60 * 60 * 1000;
// Seen-at is written at most this often, so browsing the dashboard is not a write per request.
const touchEveryMs = 60 * 1000;

/** Sessions by the SHA-256 of their cookie token (SQL only). */
export function createSessionStore(db: Database, now: () => number = Date.now) {
  return {
    /** A new session; the token goes into the cookie and nowhere else. */
    async create(userId: string, accountId: string | null): Promise<{ token: string; session: SessionRow }> {
      const token = newSecretToken();
      const at = now();
      const session = await db
        .insertInto('sessions')
        .values({
          token_hash: hashSecretToken(token),
          user_id: userId,
          account_id: accountId,
          csrf_token: newSecretToken(),
          created_at: new Date(at),
          last_seen_at: new Date(at),
          expires_at: new Date(at + sessionIdleMs),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { token, session };
    },

    /** The live session of a token (its idle expiry pushed on), or undefined. */
    async find(token: string): Promise<SessionRow | undefined> {
      const tokenHash = hashSecretToken(token);
      const row = await db.selectFrom('sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      if (!row) return undefined;
      const at = now();
      if (row.expires_at.getTime() <= at) {
        await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
        return undefined;
      }
      if (at - row.last_seen_at.getTime() < touchEveryMs) return row;
      return db
        .updateTable('sessions')
        .set({ last_seen_at: new Date(at), expires_at: new Date(at + sessionIdleMs) })
        .where('token_hash', '=', tokenHash)
        .returningAll()
        .executeTakeFirst();
    },

    async setAccount(tokenHash: string, accountId: string | null): Promise<void> {
      await db.updateTable('sessions').set({ account_id: accountId }).where('token_hash', '=', tokenHash).execute();
    },

    async delete(tokenHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
    },

    async deleteAllOf(userId: string): Promise<void> {
      await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
