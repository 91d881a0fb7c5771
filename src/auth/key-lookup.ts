import type { AccountRow, ApiKeyRow } from '../db/tables/accounts.ts';

/** The key and its account, as authentication needs them: one round trip. */
export interface KeyWithAccount {
  key_id: string;
  account_id: string;
  environment: ApiKeyRow['environment'];
  scopes: string[];
  revoked_at: Date | null;
  plan: AccountRow['plan'];
  limits: AccountRow['limits'];
  restrictions: ApiKeyRow['restrictions'];
  key_limits: ApiKeyRow['limits'];
  /** Set when `hash` is the key's rotated-out secret: it works until then (its grace, perhaps over), then never again. */
  valid_until: Date | null;
}

/** Where the authenticator finds a key by the SHA-256 of its secret (src/accounts/store.ts). */
export interface KeyLookup {
  findKeyByHash(hash: string): Promise<KeyWithAccount | undefined>;
}
