import type { ColumnType, Insertable, Selectable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;

export interface AccountsTable {
  id: string;
  name: string;
  plan: 'free' | 'growth' | 'enterprise';
  /** Overrides of the plan's limits; `null` inside means unlimited. */
  limits: ColumnType<Record<string, number | null>, string, string>;
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
}

export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type NewAccountRow = Insertable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
