import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { notFound, unauthorized } from '../core/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { openSession } from './open-session.ts';
import { verifyPassword } from './passwords.ts';
import { Session, SignInBody, SwitchAccountBody } from './schemas.ts';
import { clearSessionCookie } from './session-cookie.ts';
import { sessionView } from './session-view.ts';

/** Sign in, sign out, the current session, and switching the session's account. */
export async function sessionRoutes(app: FastifyInstance, deps: DashboardDeps) {
  app.get('/session', { schema: { response: { 200: Session, ...errorResponses(401) } } }, async (request) =>
    sessionView(request.dashboard!),
  );

  app.post(
    '/session',
    {
      config: { withoutSession: true },
      schema: { body: SignInBody, response: { 200: Session, ...errorResponses(400, 401, 429) } },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof SignInBody>;
      const email = body.email.trim().toLowerCase();
      await deps.signInLimits.assertAllowed(email, request.ip);
      const user = await deps.users.findByEmail(email);
      const matches = await verifyPassword(body.password, user?.password_hash ?? null);
      if (!user || !matches) {
        await deps.signInLimits.recordFailure(email, request.ip);
        throw unauthorized('email or password is wrong');
      }
      await deps.signInLimits.clearAddress(email, request.ip);
      return sessionView(await openSession(deps, reply, user));
    },
  );

  app.delete(
    '/session',
    { schema: { response: { 204: { type: 'null' }, ...errorResponses(401, 403) } } },
    async (request, reply) => {
      await deps.sessions.delete(request.dashboard!.session.token_hash);
      clearSessionCookie(reply, deps.secureCookie);
      return reply.code(204).send();
    },
  );

  app.put(
    '/session/account',
    { schema: { body: SwitchAccountBody, response: { 200: Session, ...errorResponses(400, 401, 403, 404) } } },
    async (request) => {
      const caller = request.dashboard!;
      const { account_id } = request.body as Static<typeof SwitchAccountBody>;
      const target = caller.memberships.find((m) => m.account_id === account_id);
      // Another's account is as absent as one that does not exist.
      if (!target) throw notFound(`account '${account_id}' does not exist`);
      await deps.sessions.setAccount(caller.session.token_hash, target.account_id);
      return sessionView({ ...caller, session: { ...caller.session, account_id: target.account_id }, current: target });
    },
  );
}
