import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { KeyLimits, KeyRestrictions } from '../../keys/key-settings.ts';
import type { Timestamp } from './column-types.ts';

// Accounts, their API keys and each key's audit trail.

export interface AccountsTable {
  id: string;
  name: string;
  plan: 'free' | 'growth' | 'enterprise';
  /** Overrides of the plan's limits; `null` inside means unlimited. */
  limits: ColumnType<Record<string, number | null>, string, string>;
  /** Where notices (a paused webhook) are mailed. */
  email: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  environment: 'test' | 'live';
  /** The key's first characters, for people to recognise it; never enough to use it. */
  prefix: string;
  /** Hex SHA-256 of the whole key: the key itself is never stored. */
  key_hash: string;
  scopes: ColumnType<string[], string, string>;
  created_at: Timestamp;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Where and on what the key may be used (src/keys/key-settings.ts); `{}`: anywhere. */
  restrictions: ColumnType<KeyRestrictions, string | undefined, string>;
  /** The key's own limits, under its account's; `{}`: the account's only. */
  limits: ColumnType<KeyLimits, string | undefined, string>;
  /** After a rotation: the hash of the secret it replaced, accepted until `previous_key_expires_at`. */
  previous_key_hash: ColumnType<string | null, string | null | undefined, string | null>;
  previous_key_expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The audit trail of a key: every change, who made it and when. */
export interface ApiKeyEventsTable {
  id: Generated<string>;
  key_id: string;
  account_id: string;
  action: 'create' | 'restrict' | 'rotate' | 'revoke';
  /** `admin` (the admin token), `user:<id>` (a dashboard user) or `cli`. */
  actor: string;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Timestamp;
}

export type AccountRow = Selectable<AccountsTable>;
export type NewAccountRow = Insertable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type ApiKeyEventRow = Selectable<ApiKeyEventsTable>;
export type NewApiKeyEventRow = Insertable<ApiKeyEventsTable>;

/** A single-use signed request's `jti`, remembered until the token's `exp` (restrictions.jwt.single_use). */
export interface UsedJwtIdsTable {
  key_id: string;
  jti: string;
  expires_at: Timestamp;
}
