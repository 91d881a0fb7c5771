import { ensureDevKey } from '../accounts/dev-key.ts';
import type { Context } from '../context/context.ts';
import { ensureDevUser } from '../dashboard/dev-user.ts';
import { signInLinkPath } from '../dashboard/sign-in-link.ts';
import type { AccessControl } from './wire-accounts.ts';
import type { Dashboard } from './wire-dashboard.ts';

export interface DevAccess {
  readonly devKey?: { key: string; created: boolean; path: string };
  /** A one-time link that signs the dev user into the dashboard (24 h). */
  readonly devSignInUrl?: string;
}

/** Development mode, processes serving the API: the dev key, and a sign-in link for the dev user. */
export async function wireDevAccess(ctx: Context, url: string, access: AccessControl, dashboard: Dashboard): Promise<DevAccess> {
  const { config } = ctx;
  if (config.mode !== 'development' || !config.roles.includes('api')) return {};
  const { accounts, authenticator } = access;
  const devKey = await ensureDevKey({ accounts, authenticator, dataDir: config.dataDir });
  const accountId = (await authenticator.authenticate(devKey.key)).accountId;
  const token = await ensureDevUser({ users: dashboard.users, userTokens: dashboard.userTokens, accountId });
  return { devKey, devSignInUrl: `${url}${signInLinkPath(token)}` };
}
