import { newId } from '../accounts/ids.ts';
import type { Database } from '../db/connect.ts';
import type { InvitationRow, MemberRole } from '../db/tables/dashboard.ts';
import { hashSecretToken, newSecretToken } from './secret-token.ts';

/** How long an invitation link works. */
export const invitationTtlMs = 7 * 24 * 60 * 60 * 1000;

/** Invitations to join an account, by link (SQL only). */
export function createInvitationStore(db: Database, now: () => number = Date.now) {
  return {
    async create(input: { accountId: string; email: string; role: MemberRole; createdBy: string }) {
      const token = newSecretToken();
      const row = await db
        .insertInto('invitations')
        .values({
          id: newId('inv'),
          account_id: input.accountId,
          email: input.email.toLowerCase(),
          role: input.role,
          token_hash: hashSecretToken(token),
          created_by: input.createdBy,
          expires_at: new Date(now() + invitationTtlMs),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { token, row };
    },

    /** The account's invitations still waiting to be accepted. */
    async listOpen(accountId: string): Promise<InvitationRow[]> {
      return db
        .selectFrom('invitations')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', new Date(now()))
        .orderBy('created_at', 'desc')
        .execute();
    },

    async revoke(accountId: string, id: string): Promise<boolean> {
      const result = await db
        .updateTable('invitations')
        .set({ revoked_at: new Date(now()) })
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** The open invitation of a token, or undefined (unknown, expired, revoked or accepted). */
    async findOpen(token: string): Promise<InvitationRow | undefined> {
      return db
        .selectFrom('invitations')
        .selectAll()
        .where('token_hash', '=', hashSecretToken(token))
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', new Date(now()))
        .executeTakeFirst();
    },

    /** The open invitation of an id (a verified acceptance comes back with it), or undefined. */
    async findOpenById(id: string): Promise<InvitationRow | undefined> {
      return db
        .selectFrom('invitations')
        .selectAll()
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', new Date(now()))
        .executeTakeFirst();
    },

    /** Marks it accepted; false when it was accepted or revoked meanwhile. */
    async markAccepted(id: string): Promise<boolean> {
      const result = await db
        .updateTable('invitations')
        .set({ accepted_at: new Date(now()) })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },
  };
}

export type InvitationStore = ReturnType<typeof createInvitationStore>;
