import type { Database } from '../db/connect.ts';

/**
 * When each key of the account last made a request: the latest minute with requests in
 * `usage_minutes` (docs/dashboard-api.md, "Keys"). Until the usage recorder's table is merged this
 * knows nothing, and every key's `last_used_at` is null.
 */
export async function lastUsedByKey(_db: Database, _accountId: string): Promise<ReadonlyMap<string, Date>> {
  return new Map();
}
