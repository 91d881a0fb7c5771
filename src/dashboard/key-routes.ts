import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import {
  ApiKeyEvent,
  ApiKeyInfo,
  CreatedApiKey,
  CreateKeyBody,
  IdParams,
  RotateKeyBody,
  UpdateKeyBody,
} from '../accounts/schemas.ts';
import type { AccountService } from '../accounts/service.ts';
import { listBodyLimit } from '../http/body-limits.ts';
import { missingBodyAsEmpty } from '../http/optional-body.ts';
import { pageWindow, paginationQuery } from '../http/pagination.ts';
import { errorResponses } from '../http/schemas.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { currentAccountOf } from './session-guard.ts';

// An account has a handful of keys; the dashboard lists them all at once.
const allKeys = { offset: 0, limit: 1000 };

/** The session account's API keys, through the same AccountService as the admin API. */
export async function keyRoutes(app: FastifyInstance, deps: DashboardDeps) {
  // Registration order is the OpenAPI document's path order.
  keyListRoutes(app, deps);
  singleKeyRoutes(app, deps.accounts);
}

/** List the account's keys (with when each was last used) and create one. */
function keyListRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { accounts } = deps;

  app.get(
    '/keys',
    {
      schema: {
        response: {
          200: Type.Object({
            keys: Type.Array(
              Type.Object({
                ...ApiKeyInfo.properties,
                last_used_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
              }),
            ),
          }),
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => {
      const { account_id } = currentAccountOf(request.dashboard!);
      const [{ keys }, lastUsed] = await Promise.all([accounts.listKeys(account_id, allKeys), deps.usage.lastUsed(account_id)]);
      return { keys: keys.map((key) => ({ ...key, last_used_at: lastUsed.get(key.id)?.toISOString() ?? null })) };
    },
  );

  app.post(
    '/keys',
    {
      config: { idempotent: true },
      bodyLimit: listBodyLimit,
      schema: { body: CreateKeyBody, response: { 201: CreatedApiKey, ...errorResponses(400, 401, 403) } },
    },
    async (request, reply) => {
      const { account_id } = currentAccountOf(request.dashboard!);
      const created = await accounts.createKey(account_id, request.body as Static<typeof CreateKeyBody>, actorOf(request));
      return reply.code(201).send(created);
    },
  );
}

/** Revoke, change, rotate and audit one of the account's keys. */
function singleKeyRoutes(app: FastifyInstance, accounts: AccountService) {
  app.delete(
    '/keys/:id',
    { schema: { params: IdParams, response: { 200: ApiKeyInfo, ...errorResponses(401, 403, 404) } } },
    async (request) => {
      const { account_id } = currentAccountOf(request.dashboard!);
      return accounts.revokeKey((request.params as { id: string }).id, actorOf(request), account_id);
    },
  );

  app.patch(
    '/keys/:id',
    {
      bodyLimit: listBodyLimit,
      schema: {
        params: IdParams,
        body: UpdateKeyBody,
        response: { 200: ApiKeyInfo, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { account_id } = currentAccountOf(request.dashboard!);
      const { id } = request.params as { id: string };
      return accounts.updateKey(id, request.body as Static<typeof UpdateKeyBody>, actorOf(request), account_id);
    },
  );

  app.post(
    '/keys/:id/rotate',
    {
      preValidation: missingBodyAsEmpty,
      schema: {
        params: IdParams,
        body: RotateKeyBody,
        response: { 200: CreatedApiKey, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { account_id } = currentAccountOf(request.dashboard!);
      const { id } = request.params as { id: string };
      const body = (request.body as Static<typeof RotateKeyBody> | undefined) ?? {};
      return accounts.rotateKey(id, body, actorOf(request), account_id);
    },
  );

  app.get(
    '/keys/:id/events',
    {
      schema: {
        params: IdParams,
        querystring: Type.Object(paginationQuery(25), { additionalProperties: false }),
        response: {
          200: Type.Object({ events: Type.Array(ApiKeyEvent), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { account_id } = currentAccountOf(request.dashboard!);
      const { id } = request.params as { id: string };
      const query = request.query as { page: number; limit: number };
      const { events, total } = await accounts.listKeyEvents(id, pageWindow(query), account_id);
      return { events, page: query.page, total };
    },
  );
}

/** The audit trail's actor for a dashboard change: the signed-in user. */
function actorOf(request: FastifyRequest) {
  return `user:${request.dashboard!.user.id}` as const;
}
