import { startKeyChangeListener } from '../accounts/key-change-listener.ts';
import { createKeyChangeStore } from '../accounts/key-change-store.ts';
import { type AccountService, createAccountService } from '../accounts/service.ts';
import { createAccountStore } from '../accounts/store.ts';
import { createUsedJwtStore } from '../accounts/used-jwt-store.ts';
import { resolveAdminToken } from '../auth/admin-token.ts';
import { type Authenticator, createAuthenticator } from '../auth/authenticator.ts';
import { createRequestRestrictions, type RequestRestrictions } from '../auth/restrictions/request-restrictions.ts';
import type { Context } from '../context/context.ts';
import type { OpenDatabase } from '../db/connect.ts';
import { compileTrustProxy, type TrustProxy } from '../http/client-address.ts';

export interface AccessControl {
  readonly accounts: AccountService;
  readonly authenticator: Authenticator;
  readonly restrictions: RequestRestrictions;
  readonly trustProxy: TrustProxy | undefined;
  readonly adminToken: string;
}

/** Accounts and their keys, how a request's key is checked, and the admin token. */
export async function wireAccounts(ctx: Context, database: OpenDatabase): Promise<AccessControl> {
  const { config, logger, shutdown } = ctx;
  const store = createAccountStore(database.db);
  const authenticator = createAuthenticator({ store });
  const restrictions = createRequestRestrictions({
    jwtAudience: config.jwtAudience,
    usedTokens: createUsedJwtStore(database.db),
  });
  const trustProxy = compileTrustProxy(config.trustProxy);
  const accounts = createAccountService({
    store,
    keyStore: createKeyChangeStore(database.db),
    onKeyChanged: (keyId) => authenticator.forget(keyId),
    sponsorshipCaps: config.gas.sponsorshipCaps,
  });
  // A key changed through another process (restrict, rotate, revoke) leaves this one's cache at once.
  const keyChanges = await startKeyChangeListener({ databaseUrl: database.url, authenticator, logger });
  shutdown.add('API key changes', () => keyChanges.close());
  const adminToken = resolveAdminToken(config);
  return { accounts, authenticator, restrictions, trustProxy, adminToken };
}
