import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { conflict, notFound } from '../core/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { Member, UserIdParams } from './schemas.ts';
import { assertOwner, currentAccountOf } from './session-guard.ts';

/** The members of the session's account; owners remove them. */
export async function peopleRoutes(app: FastifyInstance, deps: DashboardDeps) {
  app.get(
    '/members',
    { schema: { response: { 200: Type.Object({ members: Type.Array(Member) }), ...errorResponses(401, 403) } } },
    async (request) => {
      const account = currentAccountOf(request.dashboard!);
      const rows = await deps.users.membersOf(account.account_id);
      return {
        members: rows.map((row) => ({
          user_id: row.user_id,
          email: row.email,
          role: row.role,
          joined_at: row.created_at.toISOString(),
        })),
      };
    },
  );

  app.delete(
    '/members/:user_id',
    { schema: { params: UserIdParams, response: { 204: Type.Null(), ...errorResponses(401, 403, 404, 409) } } },
    async (request, reply) => {
      const account = assertOwner(request.dashboard!, 'remove members');
      const { user_id } = request.params as { user_id: string };
      const members = await deps.users.membersOf(account.account_id);
      const member = members.find((m) => m.user_id === user_id);
      if (!member) throw notFound(`user '${user_id}' is not a member of this account`);
      if (member.role === 'owner' && members.filter((m) => m.role === 'owner').length === 1) {
        throw conflict('the last owner of an account cannot be removed');
      }
      await deps.users.removeMember(account.account_id, user_id);
      return reply.code(204).send();
    },
  );
}
