import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ChainRegistry } from '../../chains/registry.ts';
import { namedContract } from '../../http/route-restrictions.ts';
import { restComputeUnits } from '../../limits/compute-units.ts';
import type { V3Attributes } from './attributes.ts';
import { requiredAddress, requiredTokenId } from './params.ts';
import { evmNetwork, v3Base, v3Doc, v3Errors } from './route-parts.ts';
import { ContractQuery, RarityQuery, V3AttributeSummaryResponse, V3Params, V3RarityResponse } from './schemas.ts';

type Query = Record<string, string | undefined>;
const counted = 'Counted over the held tokens whose metadata Blockyard has fetched (the first 20,000 by token id).';

/** Alchemy's trait statistics (summarizeNFTAttributes, computeRarity) under the JSON-RPC URL form, scope data:read. */
export async function alchemyV3AttributeRoutes(app: FastifyInstance, deps: { chains: ChainRegistry; attributes: V3Attributes }) {
  const config = (methodName: string) => ({
    computeUnits: restComputeUnits['nfts.owned'],
    dataQuery: true,
    scope: 'data:read' as const,
    methodName,
    contracts: namedContract('contractAddress'),
  });

  app.get(
    `${v3Base}/summarizeNFTAttributes`,
    {
      config: config('summarizeNFTAttributes'),
      schema: {
        ...v3Doc('Trait values of a collection (Alchemy v3)', `How many tokens carry each value of each trait type. ${counted}`),
        params: V3Params,
        querystring: ContractQuery,
        response: { 200: V3AttributeSummaryResponse, ...v3Errors },
      },
    },
    (request: FastifyRequest) => {
      const network = evmNetwork(deps.chains, request);
      return deps.attributes.summarize(network, requiredAddress('contractAddress', (request.query as Query).contractAddress));
    },
  );

  app.get(
    `${v3Base}/computeRarity`,
    {
      config: config('computeRarity'),
      schema: {
        ...v3Doc(
          'Rarity of an NFT’s traits (Alchemy v3)',
          `Each of the token's traits with the share of tokens that have the same value. ${counted}`,
        ),
        params: V3Params,
        querystring: RarityQuery,
        response: { 200: V3RarityResponse, ...v3Errors },
      },
    },
    (request: FastifyRequest) => {
      const query = request.query as Query;
      const network = evmNetwork(deps.chains, request);
      const contract = requiredAddress('contractAddress', query.contractAddress);
      return deps.attributes.rarity(network, contract, requiredTokenId(query.tokenId));
    },
  );
}
