import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { notFound } from '../core/errors.ts';
import type { UserRow } from '../db/tables/dashboard.ts';
import { pageWindow, paginationQuery } from '../http/pagination.ts';
import { errorResponses } from '../http/schemas.ts';
import type { UserStore } from './user-store.ts';

const adminSecurity = [{ adminToken: [] }];
const tags = ['admin'];

const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  operator: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});

const CreateUserBody = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 254 }), operator: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

const UpdateUserBody = Type.Object({ operator: Type.Boolean() }, { additionalProperties: false });

function toUser(row: UserRow) {
  return { id: row.id, email: row.email, operator: row.operator, created_at: row.created_at.toISOString() };
}

/** Dashboard users for operators: make one (or an operator). Registered inside the admin guard's scope. */
export async function userAdminRoutes(app: FastifyInstance, deps: { users: UserStore }) {
  const { users } = deps;

  app.post(
    '/admin/users',
    {
      schema: {
        summary: 'Create a dashboard user, or set the operator flag of the one with this email',
        description: 'A user made here has no password: they set one with the password reset of the dashboard.',
        tags,
        security: adminSecurity,
        body: CreateUserBody,
        response: { 200: User, 201: User, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { email, operator } = request.body as Static<typeof CreateUserBody>;
      const created = await users.insert({ email, passwordHash: null, operator: operator ?? false });
      if (created) return reply.code(201).send(toUser(created));
      const existing = (await users.findByEmail(email))!;
      if (operator === undefined || operator === existing.operator) return toUser(existing);
      return toUser((await users.setOperator(existing.id, operator))!);
    },
  );

  app.patch(
    '/admin/users/:id',
    {
      schema: {
        summary: "Set a dashboard user's operator flag",
        tags,
        security: adminSecurity,
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: UpdateUserBody,
        response: { 200: User, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const row = await users.setOperator(id, (request.body as Static<typeof UpdateUserBody>).operator);
      if (!row) throw notFound(`user '${id}' does not exist`);
      return toUser(row);
    },
  );

  app.get(
    '/admin/users',
    {
      schema: {
        summary: 'List dashboard users',
        tags,
        security: adminSecurity,
        querystring: Type.Object(paginationQuery(25), { additionalProperties: false }),
        response: {
          200: Type.Object({ users: Type.Array(User), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const query = request.query as { page: number; limit: number };
      const { rows, total } = await users.list(pageWindow(query));
      return { users: rows.map(toUser), page: query.page, total };
    },
  );
}
