import type { AccountStore } from '../../src/accounts/store.ts';

export type KeyRow = NonNullable<Awaited<ReturnType<AccountStore['findKeyByHash']>>>;

/** What the key lookup returns for a plain free-plan key, for authenticator tests with a stub store. */
export function keyRow(changes: Partial<KeyRow> = {}): KeyRow {
  return {
    key_id: 'key_1',
    account_id: 'acc_1',
    environment: 'test',
    scopes: ['rpc:read'],
    revoked_at: null,
    plan: 'free',
    limits: {},
    restrictions: {},
    key_limits: {},
    valid_until: null,
    ...changes,
  };
}
