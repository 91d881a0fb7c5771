import type { KeyRestrictions } from '../../src/accounts/key-settings.ts';
import type { TestService } from './service.ts';

/** Sets a key's restrictions through the admin API (`PATCH /admin/keys/{id}`), as an operator does. */
export async function restrictKey(t: Pick<TestService, 'admin'>, keyId: string, restrictions: KeyRestrictions): Promise<void> {
  const { status, body } = await t.admin('PATCH', `/admin/keys/${keyId}`, { restrictions });
  if (status !== 200) throw new Error(`PATCH /admin/keys/${keyId} answered ${status}: ${JSON.stringify(body)}`);
}
