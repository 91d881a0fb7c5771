import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { invalidRequest } from '../core/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { openSession } from './open-session.ts';
import { hashPassword } from './passwords.ts';
import { ResetConfirmBody, ResetRequestBody, Session } from './schemas.ts';
import { sessionView } from './session-view.ts';

const resetTtlMs = 60 * 60 * 1000;

async function mailResetLink(deps: DashboardDeps, email: string): Promise<void> {
  const user = await deps.users.findByEmail(email);
  if (!user) return;
  const token = await deps.userTokens.create(user.id, 'password_reset', resetTtlMs);
  const link = `${deps.publicUrl()}/reset-password?token=${encodeURIComponent(token)}`;
  await deps.mailer.send({
    to: user.email,
    subject: 'Reset your Blockyard password',
    text: `Someone (hopefully you) asked to reset the password of ${user.email} on Blockyard.\n\nSet a new one here within the hour (the link works once):\n\n${link}\n\nIf it was not you, ignore this message: your password stays as it is.\n`,
  });
}

/** The password-reset pair: a mailed link (1 h, single use), then the new password, which ends every other session. */
export async function passwordResetRoutes(app: FastifyInstance, deps: DashboardDeps) {
  app.post(
    '/password-reset',
    {
      config: { withoutSession: true },
      schema: { body: ResetRequestBody, response: { 202: { type: 'null' }, ...errorResponses(400, 429) } },
    },
    async (request, reply) => {
      const email = (request.body as Static<typeof ResetRequestBody>).email.trim().toLowerCase();
      await deps.mailRequests.take('password_reset', email, request.ip);
      // In the background: the answer neither waits for the mail nor, by its timing, tells whether the user exists.
      void mailResetLink(deps, email).catch((error: unknown) =>
        deps.logger.error({ err: error }, 'could not send a password reset mail'),
      );
      return reply.code(202).send();
    },
  );

  app.post(
    '/password-reset/confirm',
    {
      config: { withoutSession: true },
      schema: { body: ResetConfirmBody, response: { 200: Session, ...errorResponses(400) } },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof ResetConfirmBody>;
      const userId = await deps.userTokens.consume(body.token, 'password_reset');
      const user = userId ? await deps.users.findById(userId) : undefined;
      if (!user) throw invalidRequest('token', 'unknown, expired or already used: ask for a new link');
      await deps.users.setPassword(user.id, await hashPassword(body.password));
      await deps.sessions.deleteAllOf(user.id);
      return sessionView(await openSession(deps, reply, user));
    },
  );
}
