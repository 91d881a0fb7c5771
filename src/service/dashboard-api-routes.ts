import type { FastifyInstance } from 'fastify';
import type { Context } from '../context/context.ts';
import { dashboardApi } from '../dashboard/dashboard-api.ts';
import { createEmailVerificationStore } from '../dashboard/email-verification-store.ts';
import { createInvitationStore } from '../dashboard/invitation-store.ts';
import { createMailRequestLimits } from '../dashboard/mail-request-limits.ts';
import { createSessionStore } from '../dashboard/session-store.ts';
import { createSignInLimits } from '../dashboard/sign-in-limits.ts';
import { operatorRoutes } from './admin-api-routes.ts';
import type { ServiceParts } from './service-parts.ts';
import { sessionV1Routes } from './v1-api-routes.ts';

/**
 * The dashboard's API at /dashboard/api (processes serving the API, with a mailer). `publicUrl`: where
 * links in mails point, known once the service listens.
 */
export function dashboardApiRoutes(ctx: Context, parts: ServiceParts, publicUrl: () => string) {
  const { config, logger } = ctx;
  const { database, access, dashboard, usage } = parts;
  const mailer = parts.webhooks.mailer;
  return async (scope: FastifyInstance) => {
    if (!config.roles.includes('api') || !mailer) return;
    await dashboardApi(scope, {
      db: database.db,
      accounts: access.accounts,
      users: dashboard.users,
      sessions: createSessionStore(database.db),
      userTokens: dashboard.userTokens,
      invitations: createInvitationStore(database.db),
      signInLimits: createSignInLimits(database.db),
      emailVerifications: createEmailVerificationStore(database.db),
      mailRequests: createMailRequestLimits(database.db),
      usage: usage.store,
      mailer,
      logger,
      settings: config.dashboard,
      secureCookie: config.mode === 'production',
      publicUrl,
      v1Routes: sessionV1Routes(parts),
      operatorRoutes: operatorRoutes(parts),
    });
  };
}
