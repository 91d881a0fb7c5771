import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChainRegistry } from '../../chains/registry.ts';
import { contractFilterOf, everyContract, namedContract } from '../../http/route-restrictions.ts';
import { restComputeUnits } from '../../limits/compute-units.ts';
import { parseTokenId } from '../params.ts';
import { contractFilter, ownerFilters, ownerOrder, requiredAddress, requiredTokenId } from './params.ts';
import { evmNetwork, v3Base, v3Doc, v3Errors } from './route-parts.ts';
import {
  ContractNftsQuery,
  ContractQuery,
  HolderQuery,
  OwnerContractsQuery,
  OwnerQuery,
  OwnersForContractQuery,
  OwnersForNftQuery,
  TokenQuery,
  V3ContractNftsResponse,
  V3ContractResponse,
  V3ContractsForOwnerResponse,
  V3IsHolderOfContractResponse,
  V3IsSpamContractResponse,
  V3NftResponse,
  V3OwnedResponse,
  V3OwnersForContractResponse,
  V3OwnersForNftResponse,
  V3Params,
  V3SpamContractsResponse,
} from './schemas.ts';
import type { AlchemyV3Nfts } from './service.ts';

// biome-ignore lint/suspicious/noExplicitAny: query strings are read by name after schema validation
type Query = Record<string, any>;

type V3Deps = { chains: ChainRegistry; v3: AlchemyV3Nfts };

/**
 * Alchemy's NFT API v3 method names under the JSON-RPC URL form (`GET {url}/getNFTsForOwner?...`, as
 * alchemy-sdk sends them when given a `url`), scope data:read. Registered inside the /v1 guard's scope.
 */
export async function alchemyV3NftRoutes(app: FastifyInstance, deps: V3Deps) {
  app.get(
    `${v3Base}/getNFTsForOwner`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.owned'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'getNFTsForOwner',
        contracts: contractFilterOf('contractAddresses'),
      },
      schema: {
        ...v3Doc(
          'NFTs of an owner (Alchemy v3)',
          "The index's ownership, as GET /v1/nfts/{chain}/owned/{address}, keyset-paged by pageKey.",
        ),
        params: V3Params,
        querystring: OwnerQuery,
        response: { 200: V3OwnedResponse, ...v3Errors },
      },
    },
    (request) => nftsForOwner(deps, request),
  );

  app.get(
    `${v3Base}/getContractsForOwner`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.owned'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'getContractsForOwner',
        contracts: everyContract,
      },
      schema: {
        ...v3Doc(
          'NFT contracts of an owner (Alchemy v3)',
          "The collections the index says the owner holds tokens of, by address, keyset-paged by pageKey: each as getContractMetadata describes it, with the owner's totalBalance, numDistinctTokensOwned and its lowest token id as displayNft.",
        ),
        params: V3Params,
        querystring: OwnerContractsQuery,
        response: { 200: V3ContractsForOwnerResponse, ...v3Errors },
      },
    },
    (request) => contractsForOwner(deps, request),
  );

  app.get(
    `${v3Base}/getNFTMetadata`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.metadata'],
        computeUnitsOf: (query) => restComputeUnits[refreshRequested(query) ? 'nfts.refresh' : 'nfts.metadata']!,
        scope: 'data:read',
        methodName: 'getNFTMetadata',
        contracts: namedContract('contractAddress'),
      },
      schema: {
        ...v3Doc('NFT metadata (Alchemy v3)', 'One token, as GET /v1/nfts/{chain}/metadata/{contract}/{token_id}.'),
        params: V3Params,
        querystring: TokenQuery,
        response: { 200: V3NftResponse, ...v3Errors },
      },
    },
    (request) => nftMetadata(deps, request),
  );

  app.get(
    `${v3Base}/getContractMetadata`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.collection'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'getContractMetadata',
        contracts: namedContract('contractAddress'),
      },
      schema: {
        ...v3Doc('NFT contract metadata (Alchemy v3)', 'One collection, as GET /v1/nfts/{chain}/collection/{contract}.'),
        params: V3Params,
        querystring: ContractQuery,
        response: { 200: V3ContractResponse, ...v3Errors },
      },
    },
    (request) => contractMetadata(deps, request),
  );

  app.get(
    `${v3Base}/getNFTsForContract`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.owned'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'getNFTsForContract',
        contracts: namedContract('contractAddress'),
      },
      schema: {
        ...v3Doc('NFTs of a contract (Alchemy v3)', 'Token ids someone holds according to the index, in token id order.'),
        params: V3Params,
        querystring: ContractNftsQuery,
        response: { 200: V3ContractNftsResponse, ...v3Errors },
      },
    },
    (request) => nftsForContract(deps, request),
  );

  app.get(
    `${v3Base}/getOwnersForNFT`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.metadata'],
        scope: 'data:read',
        methodName: 'getOwnersForNFT',
        contracts: namedContract('contractAddress'),
      },
      schema: {
        ...v3Doc('Owners of an NFT (Alchemy v3)', 'Holders of one token according to the index, by address.'),
        params: V3Params,
        querystring: OwnersForNftQuery,
        response: { 200: V3OwnersForNftResponse, ...v3Errors },
      },
    },
    (request) => ownersForNft(deps, request),
  );

  app.get(
    `${v3Base}/isSpamContract`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.collection'],
        scope: 'data:read',
        methodName: 'isSpamContract',
        contracts: namedContract('contractAddress'),
      },
      schema: {
        ...v3Doc(
          'Whether a collection is spam (Alchemy v3)',
          'The is_spam verdict of GET /v1/nfts/{chain}/collection/{contract} (docs/spam.md).',
        ),
        params: V3Params,
        querystring: ContractQuery,
        response: { 200: V3IsSpamContractResponse, ...v3Errors },
      },
    },
    (request) => isSpamContract(deps, request),
  );

  app.get(
    `${v3Base}/isHolderOfContract`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.metadata'],
        scope: 'data:read',
        methodName: 'isHolderOfContract',
        contracts: namedContract('contractAddress'),
      },
      schema: {
        ...v3Doc(
          'Whether a wallet holds an NFT of a contract (Alchemy v3)',
          'From the index: true when the wallet holds at least one token of the contract (token gating).',
        ),
        params: V3Params,
        querystring: HolderQuery,
        response: { 200: V3IsHolderOfContractResponse, ...v3Errors },
      },
    },
    (request) => {
      const query = request.query as Query;
      // The network first: a key that may not use it is refused whatever it asks.
      const network = evmNetwork(deps.chains, request);
      const wallet = requiredAddress('wallet', query.wallet);
      return deps.v3.isHolderOfContract(network, wallet, requiredAddress('contractAddress', query.contractAddress));
    },
  );

  app.get(
    `${v3Base}/getSpamContracts`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.owned'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'getSpamContracts',
        contracts: everyContract,
      },
      schema: {
        ...v3Doc(
          'NFT contracts judged spam (Alchemy v3)',
          'From the classifications stored so far and the deny lists (docs/spam.md).',
        ),
        params: V3Params,
        response: { 200: V3SpamContractsResponse, ...v3Errors },
      },
    },
    (request) => deps.v3.spamContracts(evmNetwork(deps.chains, request)),
  );

  app.get(
    `${v3Base}/getOwnersForContract`,
    {
      config: {
        computeUnits: restComputeUnits['nfts.owned'],
        dataQuery: true,
        scope: 'data:read',
        methodName: 'getOwnersForContract',
        contracts: namedContract('contractAddress'),
      },
      schema: {
        ...v3Doc(
          'Owners of a collection (Alchemy v3)',
          'Holders of any token of the contract according to the index, by address.',
        ),
        params: V3Params,
        querystring: OwnersForContractQuery,
        response: { 200: V3OwnersForContractResponse, ...v3Errors },
      },
    },
    async (request, reply) => reply.type('application/json').send((await ownersForContract(deps, request)).json),
  );
}

const withMetadata = (query: Query) => query.withMetadata !== false;
/** `refreshCache=true` as the raw query string gives it (the guard prices the request before validation). */
const refreshRequested = (query: Record<string, unknown>) => String(query.refreshCache) === 'true';

async function nftsForOwner(deps: V3Deps, request: FastifyRequest) {
  const query = request.query as Query;
  const owner = requiredAddress('owner', query.owner);
  const orderBy = ownerOrder(query.orderBy);
  const filters = ownerFilters(query);
  const network = evmNetwork(deps.chains, request);
  return deps.v3.nftsForOwner(network, owner, {
    contracts: contractFilter(query),
    ...filters,
    ...(orderBy ? { orderBy } : {}),
    pageKey: query.pageKey,
    pageSize: query.pageSize,
    withMetadata: withMetadata(query),
  });
}

async function contractsForOwner(deps: V3Deps, request: FastifyRequest) {
  const query = request.query as Query;
  const owner = requiredAddress('owner', query.owner);
  const orderBy = ownerOrder(query.orderBy);
  const filters = ownerFilters(query);
  const network = evmNetwork(deps.chains, request);
  return deps.v3.contractsForOwner(network, owner, {
    ...filters,
    ...(orderBy ? { orderBy } : {}),
    pageKey: query.pageKey,
    pageSize: query.pageSize,
  });
}

async function nftMetadata(deps: V3Deps, request: FastifyRequest) {
  const query = request.query as Query;
  const contract = requiredAddress('contractAddress', query.contractAddress);
  const tokenId = requiredTokenId(query.tokenId);
  return deps.v3.nftMetadata(evmNetwork(deps.chains, request), contract, tokenId, query.refreshCache === true);
}

async function isSpamContract(deps: V3Deps, request: FastifyRequest) {
  const contract = requiredAddress('contractAddress', (request.query as Query).contractAddress);
  return deps.v3.isSpamContract(evmNetwork(deps.chains, request), contract);
}

async function contractMetadata(deps: V3Deps, request: FastifyRequest) {
  const contract = requiredAddress('contractAddress', (request.query as Query).contractAddress);
  return deps.v3.contractMetadata(evmNetwork(deps.chains, request), contract);
}

async function nftsForContract(deps: V3Deps, request: FastifyRequest) {
  const query = request.query as Query;
  const contract = requiredAddress('contractAddress', query.contractAddress);
  const start = query.pageKey ?? query.startToken;
  const from = start === undefined ? 0n : parseTokenId(start, query.pageKey === undefined ? 'startToken' : 'pageKey');
  return deps.v3.nftsForContract(evmNetwork(deps.chains, request), contract, {
    from,
    limit: query.limit,
    withMetadata: withMetadata(query),
  });
}

async function ownersForNft(deps: V3Deps, request: FastifyRequest) {
  const query = request.query as Query;
  const contract = requiredAddress('contractAddress', query.contractAddress);
  const tokenId = requiredTokenId(query.tokenId);
  return deps.v3.ownersForNft(evmNetwork(deps.chains, request), contract, tokenId, {
    pageKey: query.pageKey,
    pageSize: query.pageSize,
  });
}

async function ownersForContract(deps: V3Deps, request: FastifyRequest) {
  const query = request.query as Query;
  const contract = requiredAddress('contractAddress', query.contractAddress);
  return deps.v3.ownersForContract(evmNetwork(deps.chains, request), contract, {
    pageKey: query.pageKey,
    pageSize: query.pageSize,
    withTokenBalances: query.withTokenBalances === true,
    includeCount: query.includeCount === true,
  });
}
