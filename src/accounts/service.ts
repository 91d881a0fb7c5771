import { scopes as allScopes, type Scope } from '../auth/scopes.ts';
import type { GasSponsorshipConfig } from '../config/schema.ts';
import { invalidRequest, notFound } from '../core/errors.ts';
import type { AccountRow, ApiKeyRow } from '../db/tables.ts';
import { type AccountLimits, type Plan, resolveLimits } from '../limits/plans.ts';
import { resolveSponsorshipCaps } from '../sponsorship/operator-caps.ts';
import { generateApiKey, type KeyEnvironment } from './api-key.ts';
import { newId } from './ids.ts';
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

export interface ApiKeyInfo {
  id: string;
  account_id: string;
  name: string;
  prefix: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  created_at: string;
  revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The whole key: returned by creation only, never again. */
  key: string;
}

export interface AccountService {
  createAccount(input: {
    name: string;
    plan: Plan;
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
  createKey(accountId: string, input: { name: string; environment: KeyEnvironment; scopes?: Scope[] }): Promise<CreatedApiKey>;
  listKeys(accountId: string, page: Page): Promise<{ keys: ApiKeyInfo[]; total: number }>;
  /** Revokes a key; with `accountId`, only a key of that account (another's is 404). */
  revokeKey(id: string, accountId?: string): Promise<ApiKeyInfo>;
}

export function createAccountService(deps: {
  store: AccountStore;
  onKeyRevoked?: (keyId: string) => void;
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
    async createAccount({ name, plan, limits = {}, email }) {
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

    async createKey(accountId, { name, environment, scopes }) {
      // An empty list is far more likely a mistake (a blank --scopes) than a wish for a useless key.
      if (scopes?.length === 0) throw invalidRequest('scopes', 'name at least one scope, or leave it out for all seven');
      await requireAccount(accountId);
      const generated = generateApiKey(environment);
      const granted = scopes ? [...new Set(scopes)] : [...allScopes];
      const row = await store.insertKey({
        id: newId('key'),
        account_id: accountId,
        name,
        environment,
        prefix: generated.prefix,
        key_hash: generated.hash,
        scopes: JSON.stringify(granted),
      });
      return { ...toKeyInfo(row), key: generated.key };
    },

    async listKeys(accountId, page) {
      await requireAccount(accountId);
      const { rows, total } = await store.listKeys(accountId, page);
      return { keys: rows.map(toKeyInfo), total };
    },

    async revokeKey(id, accountId) {
      const row = await store.revokeKey(id, new Date(), accountId);
      if (!row) throw notFound(`API key '${id}' does not exist`);
      deps.onKeyRevoked?.(id);
      return toKeyInfo(row);
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

function toKeyInfo(row: ApiKeyRow): ApiKeyInfo {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    prefix: row.prefix,
    environment: row.environment,
    scopes: row.scopes as Scope[],
    created_at: row.created_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}
