import type { Database } from '../db/connect.ts';
import type { AccountRow, ApiKeyRow, NewAccountRow, NewApiKeyRow } from '../db/tables.ts';

export interface Page {
  offset: number;
  limit: number;
}

/** The key and its account, as authentication needs them: one round trip. */
export interface KeyWithAccount {
  key_id: string;
  account_id: string;
  environment: ApiKeyRow['environment'];
  scopes: string[];
  revoked_at: Date | null;
  plan: AccountRow['plan'];
  limits: AccountRow['limits'];
}

export function createAccountStore(db: Database) {
  return {
    async insertAccount(row: NewAccountRow): Promise<AccountRow> {
      return db.insertInto('accounts').values(row).returningAll().executeTakeFirstOrThrow();
    },

    async updateAccount(
      id: string,
      changes: { email?: string | null; plan?: AccountRow['plan']; limits?: string },
    ): Promise<AccountRow | undefined> {
      if (Object.keys(changes).length === 0) return this.findAccount(id);
      return db.updateTable('accounts').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
    },

    async findAccount(id: string): Promise<AccountRow | undefined> {
      return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findAccountByName(name: string): Promise<AccountRow | undefined> {
      return db.selectFrom('accounts').selectAll().where('name', '=', name).orderBy('created_at').limit(1).executeTakeFirst();
    },

    async listAccounts(page: Page): Promise<{ rows: AccountRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').offset(page.offset).limit(page.limit).execute(),
        db
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll<string>().as('total'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.total) };
    },

    async insertKey(row: NewApiKeyRow): Promise<ApiKeyRow> {
      return db.insertInto('api_keys').values(row).returningAll().executeTakeFirstOrThrow();
    },

    async listKeys(accountId: string, page: Page): Promise<{ rows: ApiKeyRow[]; total: number }> {
      const [rows, count] = await Promise.all([
        db
          .selectFrom('api_keys')
          .selectAll()
          .where('account_id', '=', accountId)
          .orderBy('created_at')
          .orderBy('id')
          .offset(page.offset)
          .limit(page.limit)
          .execute(),
        db
          .selectFrom('api_keys')
          .where('account_id', '=', accountId)
          .select((eb) => eb.fn.countAll<string>().as('total'))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.total) };
    },

    /** Marks the key revoked; returns it, or undefined when there is no such key. Revoking twice keeps the first time. */
    async revokeKey(id: string, at: Date, accountId?: string): Promise<ApiKeyRow | undefined> {
      let query = db
        .updateTable('api_keys')
        .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(at)) }))
        .where('id', '=', id);
      if (accountId !== undefined) query = query.where('account_id', '=', accountId);
      return query.returningAll().executeTakeFirst();
    },

    async findKeyByHash(hash: string): Promise<KeyWithAccount | undefined> {
      return db
        .selectFrom('api_keys')
        .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
        .select([
          'api_keys.id as key_id',
          'api_keys.account_id',
          'api_keys.environment',
          'api_keys.scopes',
          'api_keys.revoked_at',
          'accounts.plan',
          'accounts.limits',
        ])
        .where('api_keys.key_hash', '=', hash)
        .executeTakeFirst();
    },
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
