import type { KeyRestrictions } from '../../src/accounts/key-settings.ts';
import type { TestService } from './service.ts';

/**
 * Stores a key's restrictions directly in the database. The admin API's `restrictions` body (issue 24,
 * helper h24-admin) is built in parallel; once merged, tests may set them through the API instead.
 * Call before the key's first use: the authenticator caches a key's principal for 10 s.
 */
export async function restrictKeyInDatabase(
  t: Pick<TestService, 'database'>,
  keyId: string,
  restrictions: KeyRestrictions,
): Promise<void> {
  await t.database.db
    .updateTable('api_keys')
    .set({ restrictions: JSON.stringify(restrictions) })
    .where('id', '=', keyId)
    .execute();
}
