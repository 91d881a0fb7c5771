import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { pageWindow } from '../http/pagination.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { CreateWalletBody, ListWalletsQuery, Wallet, WalletListItem, WalletParams, WalletQuery } from './schemas.ts';
import type { WalletService } from './service.ts';

const tags = ['wallets'];

/** `/v1/wallets` (scope wallets:manage; wallets belong to the API key that created them). */
export async function walletRoutes(app: FastifyInstance, deps: { wallets: WalletService }) {
  const { wallets } = deps;
  const principalOf = (request: FastifyRequest) => request.principal!;

  app.post(
    '/v1/wallets/create',
    {
      config: {
        computeUnits: restComputeUnits['wallets.create'],
        methodName: 'wallets.create',
        scope: 'wallets:manage',
        idempotent: true,
      },
      schema: {
        summary: 'Create a smart wallet (SimpleAccount): its address is fixed now, it is deployed by its first UserOperation',
        tags,
        body: CreateWalletBody,
        response: { 200: Wallet, 201: Wallet, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await wallets.create(principalOf(request), request.body as Static<typeof CreateWalletBody>)),
  );

  app.get(
    '/v1/wallets/:address',
    {
      config: { computeUnits: restComputeUnits['wallets.get'], methodName: 'wallets.get', scope: 'wallets:manage' },
      schema: {
        summary: 'A wallet of this API key, with its nonce and deployment',
        tags,
        params: WalletParams,
        querystring: WalletQuery,
        response: { 200: Wallet, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { address } = request.params as { address: string };
      return wallets.get(principalOf(request), address, request.query as Static<typeof WalletQuery>);
    },
  );

  app.get(
    '/v1/wallets',
    {
      config: { computeUnits: restComputeUnits['wallets.list'], methodName: 'wallets.list', scope: 'wallets:manage' },
      schema: {
        summary: 'The wallets of this API key',
        tags,
        querystring: ListWalletsQuery,
        response: {
          200: Type.Object({ wallets: Type.Array(WalletListItem), page: Type.Integer(), total: Type.Integer() }),
          ...errorResponses(400, 401, 403, 429),
        },
      },
    },
    async (request) => {
      const query = request.query as Static<typeof ListWalletsQuery>;
      const { wallets: list, total } = await wallets.list(principalOf(request), { chain: query.chain, ...pageWindow(query) });
      return { wallets: list, page: query.page, total };
    },
  );
}
