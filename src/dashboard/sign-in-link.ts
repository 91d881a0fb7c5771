import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { DashboardDeps } from './dashboard-deps.ts';
import { openSession } from './open-session.ts';

/** How long a one-time sign-in link works. */
export const signInLinkTtlMs = 24 * 60 * 60 * 1000;

/** The path of a one-time sign-in link (under the service's URL). */
export function signInLinkPath(token: string): string {
  return `/dashboard/sign-in/${encodeURIComponent(token)}`;
}

/**
 * `GET /dashboard/sign-in/:token`: a one-time link signs in and goes to the dashboard; a used or unknown one to the sign-in page.
 * A HEAD (a link preview, `curl -I`) gets the same redirect without using the link up or signing in.
 */
export async function signInLinkRoute(app: FastifyInstance, deps: DashboardDeps) {
  app.get(
    '/dashboard/sign-in/:token',
    { schema: { hide: true, params: Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }) }) } },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const { token } = request.params as { token: string };
      if (request.method === 'HEAD') {
        return reply.redirect((await deps.userTokens.isUsable(token, 'sign_in')) ? '/' : '/sign-in?link=expired', 303);
      }
      const userId = await deps.userTokens.consume(token, 'sign_in');
      const user = userId ? await deps.users.findById(userId) : undefined;
      if (!user) return reply.redirect('/sign-in?link=expired', 303);
      await openSession(deps, reply, user);
      return reply.redirect('/', 303);
    },
  );
}
