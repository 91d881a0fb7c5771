import { newId } from '../accounts/ids.ts';
import type { Database } from '../db/connect.ts';
import type { AccountRow } from '../db/tables/accounts.ts';
import type { MemberRole, UserRow } from '../db/tables/dashboard.ts';

export interface Membership {
  account_id: string;
  name: string;
  role: MemberRole;
  plan: AccountRow['plan'];
  limits: AccountRow['limits'];
}

/** Users and their memberships of accounts (SQL only). */
export function createUserStore(db: Database) {
  return {
    async findByEmail(email: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
    },

    async findById(id: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** The new user, or undefined when the email is taken. */
    async insert(user: { email: string; passwordHash: string | null; operator?: boolean }): Promise<UserRow | undefined> {
      return db
        .insertInto('users')
        .values({ id: newId('usr'), email: user.email.toLowerCase(), password_hash: user.passwordHash, operator: user.operator })
        .onConflict((oc) => oc.column('email').doNothing())
        .returningAll()
        .executeTakeFirst();
    },

    async setPassword(userId: string, passwordHash: string): Promise<void> {
      await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
    },

    async setOperator(userId: string, operator: boolean): Promise<UserRow | undefined> {
      return db.updateTable('users').set({ operator }).where('id', '=', userId).returningAll().executeTakeFirst();
    },

    async list(page: { offset: number; limit: number }): Promise<{ rows: UserRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').offset(page.offset).limit(page.limit).execute(),
        db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<string>().as('total'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.total) };
    },

    /** Adds the user to the account; an existing membership keeps its role. */
    async addMember(accountId: string, userId: string, role: MemberRole): Promise<void> {
      await db
        .insertInto('account_members')
        .values({ account_id: accountId, user_id: userId, role })
        .onConflict((oc) => oc.columns(['account_id', 'user_id']).doNothing())
        .execute();
    },

    async membershipsOf(userId: string): Promise<Membership[]> {
      return db
        .selectFrom('account_members')
        .innerJoin('accounts', 'accounts.id', 'account_members.account_id')
        .select(['account_members.account_id', 'accounts.name', 'account_members.role', 'accounts.plan', 'accounts.limits'])
        .where('account_members.user_id', '=', userId)
        .orderBy('account_members.created_at')
        .orderBy('account_members.account_id')
        .execute();
    },

    async membersOf(accountId: string) {
      return db
        .selectFrom('account_members')
        .innerJoin('users', 'users.id', 'account_members.user_id')
        .select(['users.id as user_id', 'users.email', 'account_members.role', 'account_members.created_at'])
        .where('account_members.account_id', '=', accountId)
        .orderBy('account_members.created_at')
        .orderBy('users.id')
        .execute();
    },

    async countOwners(accountId: string): Promise<number> {
      const row = await db
        .selectFrom('account_members')
        .select((eb) => eb.fn.countAll<string>().as('owners'))
        .where('account_id', '=', accountId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      return Number(row.owners);
    },

    async removeMember(accountId: string, userId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('account_members')
        .where('account_id', '=', accountId)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}

export type UserStore = ReturnType<typeof createUserStore>;
