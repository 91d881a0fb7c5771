import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import { scopes } from '../auth/scopes.ts';
import type { RequestGuard } from '../http/server.ts';
import { resolveLimits } from '../limits/plans.ts';
import { currentAccountOf, type DashboardCaller } from './session-guard.ts';

const everyScope = new Set(scopes);

/** The session's account as a /v1 caller: every scope, every network, the account's wallets. */
export function sessionPrincipal(caller: DashboardCaller): Principal {
  const account = currentAccountOf(caller);
  return Object.freeze({
    keyId: `session:${caller.user.id}`,
    accountId: account.account_id,
    // Which network a REST path picks when none is named: the chain's testnet first (the safe side).
    environment: 'test',
    scopes: everyScope,
    limits: resolveLimits(account.plan, account.limits),
    session: { userId: caller.user.id },
  });
}

/**
 * The /v1 route plugins again, behind the session guard instead of the key guard. No route config's
 * `computeUnits` is charged: the dashboard's own calls do not spend the account's rate limits.
 */
export async function mountV1Routes(app: FastifyInstance, deps: { guard: RequestGuard; routes: FastifyPluginAsync }) {
  app.addHook('onRequest', deps.guard);
  app.addHook('onRequest', async (request) => {
    request.principal = sessionPrincipal(request.dashboard!);
  });
  await deps.routes(app, {});
}
