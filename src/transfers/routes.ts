import type { FastifyInstance } from 'fastify';
import type { ChainRegistry } from '../chains/registry.ts';
import { resolveRestNetwork } from '../chains/resolve-rest-network.ts';
import { notFound } from '../core/errors.ts';
import { parseAddressParam } from '../http/address-param.ts';
import { contractFilterOf } from '../http/route-restrictions.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { parseCategories } from './categories.ts';
import { TransfersParams, TransfersQuery, TransfersResponse } from './schemas.ts';
import type { Direction, TransferService } from './service.ts';
import type { SortOrder } from './transfer-sql.ts';

interface Query {
  network?: string;
  direction: Direction;
  category?: string[];
  contract?: string;
  from_block?: number;
  to_block?: number;
  order: SortOrder;
  limit: number;
  page_key?: string;
  exclude_spam?: boolean;
}

/** `GET /v1/transfers/{chain}/{address}` (scope data:read). Registered inside the /v1 guard's scope. */
export async function transferRoutes(app: FastifyInstance, deps: { chains: ChainRegistry; transfers: TransferService }) {
  app.get(
    '/v1/transfers/:chain/:address',
    {
      config: {
        computeUnits: restComputeUnits['transfers.list'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'transfers.list',
        contracts: contractFilterOf('contract'),
      },
      schema: {
        summary: 'Transfers of an address',
        description:
          'Native, internal (trace), ERC-20, ERC-721 and ERC-1155 transfers the address sent or received, from the chain index (reorged blocks are removed from it), ordered by block and place in the block, paged by page_key (keyset: a deep page costs what the first does). See docs/transfers.md.',
        tags: ['transfers'],
        params: TransfersParams,
        querystring: TransfersQuery,
        response: { 200: TransfersResponse, ...errorResponses(400, 401, 403, 404, 429, 503) },
      },
    },
    async (request) => {
      const { chain, address } = request.params as { chain: string; address: string };
      const query = request.query as Query;
      const holder = parseAddressParam('address', address);
      const contract = query.contract === undefined ? undefined : parseAddressParam('contract', query.contract);
      const categories = parseCategories(query.category);
      const network = resolveRestNetwork(deps.chains.list(), request.principal!, chain, query.network);
      if (network.config.kind !== 'evm')
        throw notFound(`transfers are for EVM chains; '${chain}' is a ${network.config.kind} chain`);
      return deps.transfers.list(network, {
        address: holder,
        direction: query.direction,
        categories,
        contract,
        fromBlock: query.from_block,
        toBlock: query.to_block,
        order: query.order,
        limit: query.limit,
        pageKey: query.page_key,
        excludeSpam: query.exclude_spam === true,
      });
    },
  );
}
