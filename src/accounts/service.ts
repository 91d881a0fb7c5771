import type { GasSponsorshipConfig } from '../config/gas-settings.ts';
import { notFound } from '../core/errors.ts';
import type { AccountRow } from '../db/tables/accounts.ts';
import { type AccountLimits, type Plan, resolveLimits } from '../limits/plans.ts';
import { resolveSponsorshipCaps } from '../sponsorship/operator-caps.ts';
import { newId } from './ids.ts';
import type { KeyChangeStore } from './key-change-store.ts';
import { createKeyOperations, type KeyOperations } from './key-operations.ts';
import type { AccountStore, Page } from './store.ts';

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  limits: AccountLimits & Partial<SponsorshipCapLimits>;
  email: string | null;
  created_at: string;
}

/** The operator's caps on the account's gas sponsorship, as `limits` shows and takes them. */
export interface SponsorshipCapLimits {
  sponsorship_usd_per_day: string | null;
  sponsorship_usd_total: string | null;
}

export interface AccountService extends KeyOperations {
  createAccount(input: {
    name: string;
    /** Default: free. */
    plan?: Plan;
    limits?: Partial<AccountLimits & SponsorshipCapLimits>;
    email?: string;
  }): Promise<Account>;
  /** Changes what is given: `limits` replaces the overrides of the plan's limits (`{}`: the plan's own). */
  updateAccount(
    id: string,
    changes: { email?: string | null; plan?: Plan; limits?: Partial<AccountLimits & SponsorshipCapLimits> },
  ): Promise<Account>;
  getAccount(id: string): Promise<Account>;
  findAccountByName(name: string): Promise<Account | undefined>;
  listAccounts(page: Page): Promise<{ accounts: Account[]; total: number }>;
}

export function createAccountService(deps: {
  store: AccountStore;
  keyStore: KeyChangeStore;
  /** After a key change commits (restrict, rotate, revoke): this process forgets the key at once. */
  onKeyChanged?: (keyId: string) => void;
  /** Each plan's operator caps on sponsorship (`gas.sponsorship_caps`), to show an account's in its `limits`. */
  sponsorshipCaps?: GasSponsorshipConfig['sponsorshipCaps'];
}): AccountService {
  const { store } = deps;
  const toAccount = (row: AccountRow) => accountView(row, deps.sponsorshipCaps);

  async function requireAccount(id: string): Promise<AccountRow> {
    const row = await store.findAccount(id);
    if (!row) throw notFound(`account '${id}' does not exist`);
    return row;
  }

  return {
    ...createKeyOperations(deps),

    async createAccount({ name, plan = 'free', limits = {}, email }) {
      const row = await store.insertAccount({
        id: newId('acc'),
        name,
        plan,
        limits: JSON.stringify(limits),
        email: email ?? null,
      });
      return toAccount(row);
    },

    async updateAccount(id, { email, plan, limits }) {
      const row = await store.updateAccount(id, {
        ...(email !== undefined ? { email } : {}),
        ...(plan !== undefined ? { plan } : {}),
        ...(limits !== undefined ? { limits: JSON.stringify(limits) } : {}),
      });
      if (!row) throw notFound(`account '${id}' does not exist`);
      // Its keys' cached principals carry the old plan and limits.
      for (const keyId of row.changedKeys) deps.onKeyChanged?.(keyId);
      return toAccount(row);
    },

    async getAccount(id) {
      return toAccount(await requireAccount(id));
    },

    async findAccountByName(name) {
      const row = await store.findAccountByName(name);
      return row && toAccount(row);
    },

    async listAccounts(page) {
      const { rows, total } = await store.listAccounts(page);
      return { accounts: rows.map(toAccount), total };
    },
  };
}

function accountView(row: AccountRow, sponsorshipCaps: GasSponsorshipConfig['sponsorshipCaps'] | undefined): Account {
  const caps = sponsorshipCaps && resolveSponsorshipCaps(sponsorshipCaps[row.plan], row.limits);
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    limits: {
      ...resolveLimits(row.plan, row.limits),
      ...(caps ? { sponsorship_usd_per_day: caps.usdPerDay, sponsorship_usd_total: caps.usdTotal } : {}),
    },
    email: row.email,
    created_at: row.created_at.toISOString(),
  };
}
