import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import type { DashboardDeps } from './dashboard-deps.ts';
import { emailVerificationRoutes } from './email-verification-routes.ts';
import { invitationRoutes } from './invitation-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { mountOperatorRoutes } from './mount-operator-routes.ts';
import { mountV1Routes } from './mount-v1-routes.ts';
import { passwordResetRoutes } from './password-reset.ts';
import { peopleRoutes } from './people-routes.ts';
import { createSessionGuard } from './session-guard.ts';
import { sessionRoutes } from './session-routes.ts';
import { signInLinkRoute } from './sign-in-link.ts';
import { signupRoutes } from './signup-routes.ts';

export const dashboardApiPrefix = '/dashboard/api';

/** Session data must not sit in a shared cache, nor a JSON answer be sniffed into something else. */
export async function setDashboardHeaders(_request: unknown, reply: FastifyReply): Promise<void> {
  reply.header('cache-control', 'no-store');
  reply.header('x-content-type-options', 'nosniff');
}

export interface DashboardApiDeps extends DashboardDeps {
  /** The /v1 route plugins reachable on a session (`/dashboard/api/v1/...`). */
  v1Routes: FastifyPluginAsync;
  /** The admin route plugins reachable by operators (`/dashboard/api/admin/...`). */
  operatorRoutes: FastifyPluginAsync;
}

/** Everything the web app talks to: `/dashboard/api/*` (hidden from the OpenAPI document) and the sign-in link. */
export async function dashboardApi(app: FastifyInstance, deps: DashboardApiDeps) {
  await signInLinkRoute(app, deps);
  await app.register(
    async (api) => {
      api.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true };
      });
      api.addHook('onRequest', setDashboardHeaders);
      const guard = createSessionGuard({
        users: deps.users,
        sessions: deps.sessions,
        publicOrigin: () => new URL(deps.publicUrl()).origin,
      });
      await api.register(async (own) => {
        own.addHook('onRequest', guard);
        await sessionRoutes(own, deps);
        await signupRoutes(own, deps);
        await emailVerificationRoutes(own, deps);
        await passwordResetRoutes(own, deps);
        await peopleRoutes(own, deps);
        await invitationRoutes(own, deps);
        await keyRoutes(own, deps);
      });
      await api.register(async (v1) => mountV1Routes(v1, { guard, routes: deps.v1Routes }));
      await api.register(async (admin) => mountOperatorRoutes(admin, { guard, routes: deps.operatorRoutes }));
    },
    { prefix: dashboardApiPrefix },
  );
}
