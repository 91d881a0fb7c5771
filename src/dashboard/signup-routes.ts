import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { forbidden } from '../core/errors.ts';
import type { InvitationRow } from '../db/tables/dashboard.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { hashPassword } from './passwords.ts';
import { SignUpBody, VerificationSent } from './schemas.ts';

/** An open invitation addressed to this email, or 403. */
export async function usableInvitation(deps: DashboardDeps, token: string, email: string): Promise<InvitationRow> {
  const invitation = await deps.invitations.findOpen(token);
  if (!invitation) throw forbidden('the invitation is unknown, expired, revoked or already used');
  // A leaked link is no use to anyone but the person it was sent to.
  if (invitation.email !== email.toLowerCase()) throw forbidden(`the invitation is for ${invitation.email}`);
  return invitation;
}

/** The link in a verification mail: the web app's landing page, which confirms it by POST. */
export function verificationLink(deps: DashboardDeps, token: string): string {
  return `${deps.publicUrl()}/verify-email?token=${encodeURIComponent(token)}`;
}

interface SignUpRequest {
  email: string;
  passwordHash: string;
  accountName?: string;
  invitation?: InvitationRow;
}

/**
 * A new address gets the link that completes the sign-up; a known one a note that someone tried (with
 * the ways in), so the answer, and its timing, are the same either way.
 */
async function mailSignUp(deps: DashboardDeps, request: SignUpRequest): Promise<void> {
  const base = deps.publicUrl();
  if (await deps.users.findByEmail(request.email)) {
    const joining = request.invitation
      ? '\n\nYou were invited to an account: sign in, then open the invitation link again to join it.'
      : '';
    await deps.mailer.send({
      to: request.email,
      subject: 'You already have a Blockyard account',
      text: `Someone (hopefully you) tried to create a Blockyard account with ${request.email}, which already has one.${joining}\n\nSign in: ${base}/sign-in\nForgot the password? ${base}/forgot-password\n\nIf it was not you, ignore this message: nothing changed.\n`,
    });
    return;
  }
  const token = await deps.emailVerifications.create({
    purpose: 'signup',
    email: request.email,
    passwordHash: request.passwordHash,
    accountName: request.accountName,
    invitationId: request.invitation?.id,
  });
  await deps.mailer.send({
    to: request.email,
    subject: 'Confirm your email to finish signing up to Blockyard',
    text: `Someone (hopefully you) signed up to Blockyard with ${request.email}.\n\nConfirm it here within 24 hours to ${request.invitation ? 'join the account you were invited to' : 'create your account'} (the link works once):\n\n${verificationLink(deps, token)}\n\nIf it was not you, ignore this message: nothing is created.\n`,
  });
}

/**
 * `POST /signup`: 202 and a mail, whether or not the email is known (no account enumeration). The mailed
 * link completes it (`POST /signup/verify`): open sign-up makes a new account (plan free) with the user as
 * its owner; with an invitation the user joins the inviting account instead. Invite-only mode needs the
 * invitation.
 */
export async function signupRoutes(app: FastifyInstance, deps: DashboardDeps) {
  app.post(
    '/signup',
    {
      config: { withoutSession: true },
      schema: { body: SignUpBody, response: { 202: VerificationSent, ...errorResponses(400, 403, 429) } },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof SignUpBody>;
      const email = body.email.trim().toLowerCase();
      await deps.mailRequests.take('signup', email, request.ip);
      if (body.invitation === undefined && deps.settings.signup === 'invite_only') {
        throw forbidden('sign-up is by invitation only: ask an owner of an account to invite you');
      }
      const invitation = body.invitation === undefined ? undefined : await usableInvitation(deps, body.invitation, email);
      // Hashed for a known email too: the time taken does not tell them apart.
      const passwordHash = await hashPassword(body.password);
      const accountName = invitation ? undefined : body.account_name;
      // In the background: the answer waits for neither the lookup nor the mail.
      void mailSignUp(deps, { email, passwordHash, accountName, invitation }).catch((error: unknown) =>
        deps.logger.error({ err: error }, 'could not send a sign-up mail'),
      );
      return reply.code(202).send({ email });
    },
  );
}
