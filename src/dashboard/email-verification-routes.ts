import type { FastifyInstance } from 'fastify';
import type { Selectable } from 'kysely';
import type { Static } from 'typebox';
import { conflict, forbidden, invalidRequest } from '../core/errors.ts';
import type { EmailVerificationsTable, InvitationRow, UserRow } from '../db/tables/dashboard.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { openSession } from './open-session.ts';
import { Session, TokenBody } from './schemas.ts';
import { sessionView } from './session-view.ts';

type Verification = Selectable<EmailVerificationsTable>;

async function openInvitation(deps: DashboardDeps, id: string | null): Promise<InvitationRow | undefined> {
  if (id === null) return undefined;
  const invitation = await deps.invitations.findOpenById(id);
  if (!invitation) throw forbidden('the invitation was revoked, expired or used meanwhile');
  return invitation;
}

/** Takes the invitation and adds the user to its account; 403 when it was taken or revoked meanwhile. */
async function join(deps: DashboardDeps, invitation: InvitationRow, user: UserRow): Promise<string> {
  if (!(await deps.invitations.markAccepted(invitation.id))) throw forbidden('the invitation was used meanwhile');
  await deps.users.addMember(invitation.account_id, user.id, invitation.role);
  return invitation.account_id;
}

/** A verified sign-up: the user, then the invitation's account or a new one of their own. */
async function completeSignUp(deps: DashboardDeps, row: Verification): Promise<{ user: UserRow; accountId: string }> {
  const invitation = await openInvitation(deps, row.invitation_id);
  const user = await deps.users.insert({ email: row.email, passwordHash: row.password_hash });
  // Whoever holds this link reads the mailbox: telling them the user exists reveals nothing.
  if (!user) throw conflict(`a user with the email ${row.email} already exists: sign in, or reset the password`);
  if (invitation) return { user, accountId: await join(deps, invitation, user) };
  const account = await deps.accounts.createAccount({ name: row.account_name ?? row.email, plan: 'free', email: row.email });
  await deps.users.addMember(account.id, user.id, 'owner');
  return { user, accountId: account.id };
}

/** A verified acceptance of an invitation by a user who already exists. */
async function completeJoin(deps: DashboardDeps, row: Verification): Promise<{ user: UserRow; accountId: string }> {
  const user = row.user_id === null ? undefined : await deps.users.findById(row.user_id);
  const invitation = await openInvitation(deps, row.invitation_id);
  if (!user || !invitation || user.email !== invitation.email) throw forbidden('the invitation is not for this user');
  return { user, accountId: await join(deps, invitation, user) };
}

/**
 * `POST /signup/verify`: the mailed link's token completes a sign-up (the user, and their account or the
 * inviting one) or an invitation's acceptance, then signs in (200 `Session`, current account = the new or
 * joined one). Unknown, used or expired: 400 naming `token`.
 */
export async function emailVerificationRoutes(app: FastifyInstance, deps: DashboardDeps) {
  app.post(
    '/signup/verify',
    {
      config: { withoutSession: true },
      schema: { body: TokenBody, response: { 200: Session, ...errorResponses(400, 403, 409) } },
    },
    async (request, reply) => {
      const { token } = request.body as Static<typeof TokenBody>;
      const row = await deps.emailVerifications.consume(token);
      if (!row) throw invalidRequest('token', 'unknown, expired or already used: sign up again for a new link');
      const { user, accountId } = row.purpose === 'signup' ? await completeSignUp(deps, row) : await completeJoin(deps, row);
      return sessionView(await openSession(deps, reply, user, accountId));
    },
  );
}
