import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import { resolveRestNetwork } from '../chains/resolve-rest-network.ts';
import { invalidRequest, notFound } from '../core/errors.ts';
import { parseAddressParam } from '../http/address-param.ts';
import { everyContract, namedContract } from '../http/route-restrictions.ts';
import { errorResponses } from '../http/schemas.ts';
import { restComputeUnits } from '../limits/compute-units.ts';
import { parseTokenId } from './params.ts';
import {
  CollectionParams,
  NftCollectionResponse,
  NftMetadataResponse,
  networkQuery,
  OwnedNftsResponse,
  OwnedParams,
  OwnedQuery,
  RefreshBody,
  TokenParams,
} from './schemas.ts';
import type { NftService } from './service.ts';

/** The deepest offset `GET /v1/nfts/{chain}/owned/{address}` pages to (page x limit). */
const maxOwnedOffset = 10_000;

const errors = errorResponses(400, 401, 403, 404, 429, 503);

/** The NFT REST routes (scope data:read). Registered inside the /v1 guard's scope. */
export async function nftRoutes(app: FastifyInstance, deps: { chains: ChainRegistry; nfts: NftService }) {
  function evmNetwork(request: FastifyRequest, chain: string): Network {
    const principal = request.principal!;
    const { network } = request.query as { network?: string };
    const target = resolveRestNetwork(deps.chains.list(), principal, chain, network);
    if (target.config.kind !== 'evm') throw notFound(`NFT data is for EVM chains; '${chain}' is a ${target.config.kind} chain`);
    return target;
  }

  function tokenTarget(request: FastifyRequest) {
    const { chain, contract, token_id } = request.params as { chain: string; contract: string; token_id: string };
    const address = parseAddressParam('contract', contract);
    const tokenId = parseTokenId(token_id);
    return { network: evmNetwork(request, chain), contract: address, tokenId };
  }

  app.get(
    '/v1/nfts/:chain/metadata/:contract/:token_id',
    {
      config: {
        computeUnits: restComputeUnits['nfts.metadata'],
        scope: 'data:read',
        methodName: 'nfts.metadata',
        contracts: namedContract('contract', 'params'),
      },
      schema: {
        summary: 'NFT metadata',
        description:
          'Name, description, image and traits of one ERC-721 or ERC-1155 token, from the metadata cache; a token seen for the first time is fetched now (bounded by the metadata timeout). A URI that fails gives 200 with metadata_error. 404 for an address without code or a contract that is neither ERC-721 nor ERC-1155. See docs/nfts.md.',
        tags: ['nfts'],
        params: TokenParams,
        querystring: Type.Object(networkQuery),
        response: { 200: NftMetadataResponse, ...errors },
      },
    },
    async (request) => {
      const { network, contract, tokenId } = tokenTarget(request);
      return deps.nfts.metadata(network, contract, tokenId);
    },
  );

  app.post(
    '/v1/nfts/:chain/metadata/:contract/:token_id/refresh',
    {
      config: {
        computeUnits: restComputeUnits['nfts.refresh'],
        scope: 'data:read',
        methodName: 'nfts.refresh',
        contracts: namedContract('contract', 'params'),
      },
      schema: {
        summary: 'Fetch NFT metadata again',
        description:
          'Reads the token URI from the contract and fetches its document again, replacing the cached record; answers with the new record. No body needed.',
        tags: ['nfts'],
        params: TokenParams,
        querystring: Type.Object(networkQuery),
        body: RefreshBody,
        response: { 200: NftMetadataResponse, ...errors },
      },
    },
    async (request) => {
      const { network, contract, tokenId } = tokenTarget(request);
      return deps.nfts.refresh(network, contract, tokenId);
    },
  );

  app.get(
    '/v1/nfts/:chain/collection/:contract',
    {
      config: {
        computeUnits: restComputeUnits['nfts.collection'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'nfts.collection',
        contracts: namedContract('contract', 'params'),
      },
      schema: {
        summary: 'NFT collection',
        description:
          'Name, symbol, standard (ERC-165), total supply, number of owners (from the index), contractURI fields and floor prices (null when no floor price source is configured).',
        tags: ['nfts'],
        params: CollectionParams,
        querystring: Type.Object(networkQuery),
        response: { 200: NftCollectionResponse, ...errors },
      },
    },
    async (request) => {
      const { chain, contract } = request.params as { chain: string; contract: string };
      const address = parseAddressParam('contract', contract);
      return deps.nfts.collection(evmNetwork(request, chain), address);
    },
  );

  app.get(
    '/v1/nfts/:chain/owned/:address',
    {
      config: {
        computeUnits: restComputeUnits['nfts.owned'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'nfts.owned',
        contracts: everyContract,
      },
      schema: {
        summary: 'NFTs owned by an address',
        description:
          'ERC-721 and ERC-1155 tokens the address holds according to the index (valid at block_number), ordered by contract and token id.',
        tags: ['nfts'],
        params: OwnedParams,
        querystring: OwnedQuery,
        response: { 200: OwnedNftsResponse, ...errors },
      },
    },
    async (request) => {
      const { chain, address } = request.params as { chain: string; address: string };
      const { page, limit, exclude_spam, exclude_airdrops } = request.query as {
        page: number;
        limit: number;
        exclude_spam?: boolean;
        exclude_airdrops?: boolean;
      };
      const owner = parseAddressParam('address', address);
      // An OFFSET reads every row it skips: deep pages are the v3 route's, by key.
      if ((page - 1) * limit >= maxOwnedOffset) {
        throw invalidRequest(
          'page',
          `pages reach the first ${maxOwnedOffset.toLocaleString('en-US')} NFTs at most; read further with getNFTsForOwner and its pageKey (/v1/rpc/{chain}/{network}/{apiKey}/getNFTsForOwner)`,
        );
      }
      return deps.nfts.owned(evmNetwork(request, chain), owner, {
        page,
        limit,
        ...(exclude_spam === true ? { excludeSpam: {} } : {}),
        excludeAirdrops: exclude_airdrops === true,
      });
    },
  );
}
