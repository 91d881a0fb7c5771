import type { FastifyInstance } from 'fastify';
import { accountAdminRoutes } from '../accounts/routes.ts';
import { chainStatusRoutes } from '../chains/status-routes.ts';
import { userAdminRoutes } from '../dashboard/user-admin-routes.ts';
import { createAdminGuard } from '../http/admin-guard.ts';
import { indexAdminRoutes } from '../indexer/routes.ts';
import { spamAdminRoutes } from '../spam/admin-routes.ts';
import { webhookAdminRoutes } from '../webhooks/admin-routes.ts';
import type { ServiceParts } from './service-parts.ts';
import { chainStatusOf } from './v1-api-routes.ts';

/** The admin routes an operator reaches: with the admin token at /admin, or signed in to the dashboard. */
export function operatorRoutes(parts: ServiceParts) {
  const { access, database, webhooks, dashboard } = parts;
  return async (scope: FastifyInstance) => {
    await accountAdminRoutes(scope, { accounts: access.accounts });
    await webhookAdminRoutes(scope, { db: database.db, queued: webhooks.poke });
    await userAdminRoutes(scope, { users: dashboard.users });
    await spamAdminRoutes(scope, { chains: parts.upstreams.chains, spam: parts.chainData.spam });
  };
}

/** The admin API at /admin, behind the admin token; every process serves it. */
export function adminApiRoutes(parts: ServiceParts) {
  const operator = operatorRoutes(parts);
  return async (scope: FastifyInstance) => {
    scope.addHook('onRequest', createAdminGuard(parts.access.adminToken));
    await operator(scope);
    await indexAdminRoutes(scope, { store: parts.indexStore, backfills: parts.backfillStore, chains: parts.upstreams.chains });
    // `GET /admin/chains`: the same plugin the dashboard mounts at /dashboard/api/chains.
    await scope.register(async (status) => chainStatusRoutes(status, chainStatusOf(parts)), { prefix: '/admin' });
  };
}
