import { sql } from 'kysely';
import type { KeyWithAccount } from '../auth/key-lookup.ts';
import type { Database } from '../db/connect.ts';
import type { AccountRow, ApiKeyRow, NewAccountRow } from '../db/tables/accounts.ts';
import { keyChangedChannel } from './key-change-store.ts';
import type { Page } from './page.ts';

export type { Page } from './page.ts';

export function createAccountStore(db: Database) {
  return {
    async insertAccount(row: NewAccountRow): Promise<AccountRow> {
      return db.insertInto('accounts').values(row).returningAll().executeTakeFirstOrThrow();
    },

    /**
     * A change of plan or limits reaches every process at once, as a key change does: each of the
     * account's live keys is NOTIFYed (on commit) and answered in `changedKeys`, for this process.
     */
    async updateAccount(
      id: string,
      changes: { email?: string | null; plan?: AccountRow['plan']; limits?: string },
    ): Promise<(AccountRow & { changedKeys: string[] }) | undefined> {
      if (Object.keys(changes).length === 0) {
        const row = await this.findAccount(id);
        return row && { ...row, changedKeys: [] };
      }
      return db.transaction().execute(async (trx) => {
        const row = await trx.updateTable('accounts').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
        if (!row || (changes.plan === undefined && changes.limits === undefined)) return row && { ...row, changedKeys: [] };
        const keys = await trx
          .selectFrom('api_keys')
          .select('id')
          .where('account_id', '=', id)
          .where('revoked_at', 'is', null)
          .execute();
        for (const key of keys) await sql`select pg_notify(${keyChangedChannel}, ${key.id})`.execute(trx);
        return { ...row, changedKeys: keys.map((key) => key.id) };
      });
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

    async findKey(id: string, accountId?: string): Promise<ApiKeyRow | undefined> {
      let query = db.selectFrom('api_keys').selectAll().where('id', '=', id);
      if (accountId !== undefined) query = query.where('account_id', '=', accountId);
      return query.executeTakeFirst();
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

    /** The key whose current secret, or rotated-out secret (see `valid_until`), has this hash. */
    async findKeyByHash(hash: string): Promise<KeyWithAccount | undefined> {
      const row = await db
        .selectFrom('api_keys')
        .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
        .select([
          'api_keys.id as key_id',
          'api_keys.account_id',
          'api_keys.environment',
          'api_keys.scopes',
          'api_keys.revoked_at',
          'api_keys.restrictions',
          'api_keys.limits as key_limits',
          'api_keys.key_hash',
          'api_keys.previous_key_expires_at',
          'accounts.plan',
          'accounts.limits',
        ])
        .where((eb) => eb.or([eb('api_keys.key_hash', '=', hash), eb('api_keys.previous_key_hash', '=', hash)]))
        .executeTakeFirst();
      if (row === undefined) return undefined;
      const { key_hash, previous_key_expires_at, ...found } = row;
      // A rotated-out secret carries the instant it stops working, past or future: the authenticator decides.
      return { ...found, valid_until: key_hash === hash ? null : (previous_key_expires_at ?? new Date(0)) };
    },
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
