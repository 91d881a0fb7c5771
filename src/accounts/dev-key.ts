import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Authenticator } from '../auth/authenticator.ts';
import type { AccountService } from './service.ts';

export const devAccountName = 'dev';

export function devKeyPath(dataDir: string): string {
  return join(dataDir, 'dev-api-key');
}

/**
 * The development key: the one in `<dataDir>/dev-api-key` while it still works, else a new test key
 * with all scopes for the `dev` account (growth plan, created on first start), written there (0600).
 */
export async function ensureDevKey(deps: { accounts: AccountService; authenticator: Authenticator; dataDir: string }) {
  const path = devKeyPath(deps.dataDir);
  const existing = readKeyFile(path);
  if (existing) {
    const works = await deps.authenticator.authenticate(existing).then(
      () => true,
      () => false,
    );
    if (works) return { key: existing, created: false, path };
  }
  const account =
    (await deps.accounts.findAccountByName(devAccountName)) ??
    (await deps.accounts.createAccount({ name: devAccountName, plan: 'growth' }));
  const { key } = await deps.accounts.createKey(account.id, { name: 'dev', environment: 'test' }, 'cli');
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  return { key, created: true, path };
}

function readKeyFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
