import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { conflict, notFound } from '../core/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { CreatedInvitation, Invitation, InvitationBody, TokenBody, VerificationSent } from './schemas.ts';
import { assertOwner } from './session-guard.ts';
import { usableInvitation, verificationLink } from './signup-routes.ts';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** Owners invite people by link (shown once, 7 days); a signed-in invitee accepts it. */
export async function invitationRoutes(app: FastifyInstance, deps: DashboardDeps) {
  app.get(
    '/invitations',
    { schema: { response: { 200: Type.Object({ invitations: Type.Array(Invitation) }), ...errorResponses(401, 403) } } },
    async (request) => {
      const account = assertOwner(request.dashboard!, 'see invitations');
      const rows = await deps.invitations.listOpen(account.account_id);
      return {
        invitations: rows.map((row) => ({
          id: row.id,
          email: row.email,
          role: row.role,
          created_at: row.created_at.toISOString(),
          expires_at: row.expires_at.toISOString(),
        })),
      };
    },
  );

  app.post(
    '/invitations',
    { schema: { body: InvitationBody, response: { 201: CreatedInvitation, ...errorResponses(400, 401, 403, 409) } } },
    async (request, reply) => {
      const caller = request.dashboard!;
      const account = assertOwner(caller, 'invite people');
      const body = request.body as Static<typeof InvitationBody>;
      const members = await deps.users.membersOf(account.account_id);
      if (members.some((m) => m.email === body.email.toLowerCase())) {
        throw conflict(`${body.email.toLowerCase()} is already a member of this account`);
      }
      const { token, row } = await deps.invitations.create({
        accountId: account.account_id,
        email: body.email,
        role: body.role,
        createdBy: caller.user.id,
      });
      return reply.code(201).send({
        id: row.id,
        email: row.email,
        role: row.role,
        link: `${deps.publicUrl()}/invite?token=${encodeURIComponent(token)}`,
        expires_at: row.expires_at.toISOString(),
      });
    },
  );

  app.delete(
    '/invitations/:id',
    { schema: { params: IdParams, response: { 204: Type.Null(), ...errorResponses(401, 403, 404) } } },
    async (request, reply) => {
      const account = assertOwner(request.dashboard!, 'revoke invitations');
      const { id } = request.params as { id: string };
      if (!(await deps.invitations.revoke(account.account_id, id))) throw notFound(`invitation '${id}' does not exist`);
      return reply.code(204).send();
    },
  );

  // The link alone is no proof of the address (the owner may have pasted it anywhere), and a user's email
  // may predate verification: joining completes from a link mailed to the invited address.
  app.post(
    '/invitations/accept',
    { schema: { body: TokenBody, response: { 202: VerificationSent, ...errorResponses(400, 401, 403) } } },
    async (request, reply) => {
      const caller = request.dashboard!;
      const { token } = request.body as Static<typeof TokenBody>;
      const invitation = await usableInvitation(deps, token, caller.user.email);
      const verification = await deps.emailVerifications.create({
        purpose: 'join',
        email: invitation.email,
        userId: caller.user.id,
        invitationId: invitation.id,
      });
      await deps.mailer.send({
        to: invitation.email,
        subject: 'Confirm joining a Blockyard account',
        text: `You (${invitation.email}) accepted an invitation to join a Blockyard account as ${invitation.role}.\n\nConfirm it here within 24 hours (the link works once):\n\n${verificationLink(deps, verification)}\n\nIf it was not you, ignore this message: nothing changes.\n`,
      });
      return reply.code(202).send({ email: invitation.email });
    },
  );
}
