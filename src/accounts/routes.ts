import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { listBodyLimit } from '../http/body-limits.ts';
import { missingBodyAsEmpty } from '../http/optional-body.ts';
import { pageWindow, paginationQuery } from '../http/pagination.ts';
import { errorResponses } from '../http/schemas.ts';
import {
  Account,
  ApiKeyEvent,
  ApiKeyInfo,
  CreateAccountBody,
  CreatedApiKey,
  CreateKeyBody,
  IdParams,
  RotateKeyBody,
  UpdateAccountBody,
  UpdateKeyBody,
} from './schemas.ts';
import type { AccountService } from './service.ts';

const adminSecurity = [{ adminToken: [] }];

const tags = ['admin'];

/** The admin API for accounts and keys (operators, dashboard back end). Registered inside the admin guard's scope. */
export async function accountAdminRoutes(app: FastifyInstance, deps: { accounts: AccountService }) {
  // Registration order is the OpenAPI document's path order.
  accountRoutes(app, deps.accounts);
  accountKeyRoutes(app, deps.accounts);
  apiKeyRoutes(app, deps.accounts);
}

/** Create, list, read and change accounts. */
function accountRoutes(app: FastifyInstance, accounts: AccountService) {
  app.post(
    '/admin/accounts',
    {
      config: { idempotent: true },
      schema: {
        summary: 'Create an account',
        tags,
        security: adminSecurity,
        body: CreateAccountBody,
        response: { 201: Account, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const body = request.body as Static<typeof CreateAccountBody>;
      return reply.code(201).send(await accounts.createAccount(body));
    },
  );

  app.get(
    '/admin/accounts',
    {
      schema: {
        summary: 'List accounts',
        tags,
        security: adminSecurity,
        querystring: Type.Object(paginationQuery(25), { additionalProperties: false }),
        response: {
          200: Type.Object({ accounts: Type.Array(Account), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const query = request.query as { page: number; limit: number };
      const { accounts: list, total } = await accounts.listAccounts(pageWindow(query));
      return { accounts: list, page: query.page, total };
    },
  );

  app.get(
    '/admin/accounts/:id',
    {
      schema: {
        summary: 'Get an account',
        tags,
        security: adminSecurity,
        params: IdParams,
        response: { 200: Account, ...errorResponses(401, 404) },
      },
    },
    async (request) => accounts.getAccount((request.params as { id: string }).id),
  );

  app.patch(
    '/admin/accounts/:id',
    {
      schema: {
        summary: "Change an account's email (where notices such as a paused webhook go), plan or limits",
        tags,
        security: adminSecurity,
        params: IdParams,
        body: UpdateAccountBody,
        response: { 200: Account, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      return accounts.updateAccount(id, request.body as Static<typeof UpdateAccountBody>);
    },
  );
}

/** Create and list the keys of one account. */
function accountKeyRoutes(app: FastifyInstance, accounts: AccountService) {
  app.post(
    '/admin/accounts/:id/keys',
    {
      config: { idempotent: true },
      // Restrictions hold lists of up to 1,000 entries each and public keys.
      bodyLimit: listBodyLimit,
      schema: {
        summary: 'Create an API key (the key is shown only in this response)',
        tags,
        security: adminSecurity,
        params: IdParams,
        body: CreateKeyBody,
        response: { 201: CreatedApiKey, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      const created = await accounts.createKey(id, request.body as Static<typeof CreateKeyBody>, 'admin');
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/admin/accounts/:id/keys',
    {
      schema: {
        summary: "List an account's API keys (never the keys themselves)",
        tags,
        security: adminSecurity,
        params: IdParams,
        querystring: Type.Object(paginationQuery(25), { additionalProperties: false }),
        response: {
          200: Type.Object({ keys: Type.Array(ApiKeyInfo), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const query = request.query as { page: number; limit: number };
      const { keys, total } = await accounts.listKeys(id, pageWindow(query));
      return { keys, page: query.page, total };
    },
  );
}

/** Revoke, change, rotate and audit one key by its id. */
function apiKeyRoutes(app: FastifyInstance, accounts: AccountService) {
  app.delete(
    '/admin/keys/:id',
    {
      schema: {
        summary: 'Revoke an API key (401 for it from then on)',
        tags,
        security: adminSecurity,
        params: IdParams,
        response: { 200: ApiKeyInfo, ...errorResponses(401, 404) },
      },
    },
    async (request) => accounts.revokeKey((request.params as { id: string }).id, 'admin'),
  );

  app.patch(
    '/admin/keys/:id',
    {
      // Restrictions hold lists of up to 1,000 entries each and public keys.
      bodyLimit: listBodyLimit,
      schema: {
        summary: "Change an API key's name, scopes, restrictions or own limits (a given field replaces the stored one)",
        tags,
        security: adminSecurity,
        params: IdParams,
        body: UpdateKeyBody,
        response: { 200: ApiKeyInfo, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      return accounts.updateKey(id, request.body as Static<typeof UpdateKeyBody>, 'admin');
    },
  );

  app.post(
    '/admin/keys/:id/rotate',
    {
      preValidation: missingBodyAsEmpty,
      schema: {
        summary: 'Rotate an API key: a new secret (shown only in this response); the old one works until its grace ends',
        tags,
        security: adminSecurity,
        params: IdParams,
        body: RotateKeyBody,
        response: { 200: CreatedApiKey, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      return accounts.rotateKey(id, (request.body as Static<typeof RotateKeyBody> | undefined) ?? {}, 'admin');
    },
  );

  app.get(
    '/admin/keys/:id/events',
    {
      schema: {
        summary: "An API key's audit trail: every change (create, restrict, rotate, revoke), who made it and when; newest first",
        tags,
        security: adminSecurity,
        params: IdParams,
        querystring: Type.Object(paginationQuery(25), { additionalProperties: false }),
        response: {
          200: Type.Object({ events: Type.Array(ApiKeyEvent), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const query = request.query as { page: number; limit: number };
      const { events, total } = await accounts.listKeyEvents(id, pageWindow(query));
      return { events, page: query.page, total };
    },
  );
}
