import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { conflict, forbidden, notFound } from '../core/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { CreatedInvitation, Invitation, InvitationBody, Session, TokenBody } from './schemas.ts';
import { assertOwner } from './session-guard.ts';
import { sessionView } from './session-view.ts';
import { usableInvitation } from './signup-routes.ts';

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

  app.post(
    '/invitations/accept',
    { schema: { body: TokenBody, response: { 200: Session, ...errorResponses(400, 401, 403) } } },
    async (request) => {
      const caller = request.dashboard!;
      const { token } = request.body as Static<typeof TokenBody>;
      const invitation = await usableInvitation(deps, token, caller.user.email);
      if (!(await deps.invitations.markAccepted(invitation.id))) throw forbidden('the invitation was used meanwhile');
      await deps.users.addMember(invitation.account_id, caller.user.id, invitation.role);
      await deps.sessions.setAccount(caller.session.token_hash, invitation.account_id);
      const memberships = await deps.users.membershipsOf(caller.user.id);
      const current = memberships.find((m) => m.account_id === invitation.account_id);
      return sessionView({ ...caller, memberships, current, session: { ...caller.session, account_id: invitation.account_id } });
    },
  );
}
