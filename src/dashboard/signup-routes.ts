import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { conflict, forbidden } from '../core/errors.ts';
import type { InvitationRow } from '../db/tables.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { openSession } from './open-session.ts';
import { hashPassword } from './passwords.ts';
import { Session, SignUpBody } from './schemas.ts';
import { sessionView } from './session-view.ts';

/** An open invitation addressed to this email, or 403. */
export async function usableInvitation(deps: DashboardDeps, token: string, email: string): Promise<InvitationRow> {
  const invitation = await deps.invitations.findOpen(token);
  if (!invitation) throw forbidden('the invitation is unknown, expired, revoked or already used');
  // A leaked link is no use to anyone but the person it was sent to.
  if (invitation.email !== email.toLowerCase()) throw forbidden(`the invitation is for ${invitation.email}`);
  return invitation;
}

/**
 * `POST /signup`: open sign-up makes a new account (plan free) with the user as its owner; with an
 * invitation the user joins the inviting account instead. Invite-only mode needs the invitation.
 */
export async function signupRoutes(app: FastifyInstance, deps: DashboardDeps) {
  app.post(
    '/signup',
    {
      config: { withoutSession: true },
      schema: { body: SignUpBody, response: { 201: Session, ...errorResponses(400, 403, 409) } },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof SignUpBody>;
      const email = body.email.trim().toLowerCase();
      if (body.invitation === undefined && deps.settings.signup === 'invite_only') {
        throw forbidden('sign-up is by invitation only: ask an owner of an account to invite you');
      }
      const invitation = body.invitation === undefined ? undefined : await usableInvitation(deps, body.invitation, email);
      const user = await deps.users.insert({ email, passwordHash: await hashPassword(body.password) });
      if (!user) throw conflict(`a user with the email ${email} already exists: sign in, or reset the password`);
      let accountId: string;
      if (invitation) {
        // Taken by a concurrent request meanwhile: the user exists, without the account.
        if (!(await deps.invitations.markAccepted(invitation.id))) throw forbidden('the invitation was used meanwhile');
        await deps.users.addMember(invitation.account_id, user.id, invitation.role);
        accountId = invitation.account_id;
      } else {
        const account = await deps.accounts.createAccount({ name: body.account_name ?? email, plan: 'free', email });
        await deps.users.addMember(account.id, user.id, 'owner');
        accountId = account.id;
      }
      const caller = await openSession(deps, reply, user, accountId);
      return reply.code(201).send(sessionView(caller));
    },
  );
}
