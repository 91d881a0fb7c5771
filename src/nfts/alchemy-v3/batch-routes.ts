import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChainRegistry } from '../../chains/registry.ts';
import { parseAddressParam } from '../../http/address-param.ts';
import { chargeRequest } from '../../http/charge.ts';
import { errorHandler } from '../../http/error-handler.ts';
import { assertContractsListed } from '../../http/route-restrictions.ts';
import { restComputeUnits } from '../../limits/compute-units.ts';
import type { RateLimiter } from '../../limits/limiter.ts';
import type { Metrics } from '../../observability/metrics.ts';
import { parseTokenId } from '../params.ts';
import { evmNetwork, v3Base, v3Doc, v3Errors } from './route-parts.ts';
import {
  ContractMetadataBatchBody,
  NftMetadataBatchBody,
  V3ContractBatchResponse,
  V3NftBatchResponse,
  V3Params,
} from './schemas.ts';
import type { AlchemyV3Nfts, BatchToken } from './service.ts';

type BatchDeps = { chains: ChainRegistry; v3: AlchemyV3Nfts; limiter: RateLimiter; metrics: Metrics };

interface TokensBody {
  tokens: { contractAddress: string; tokenId: string | number }[];
  refreshCache?: boolean;
}
interface ContractsBody {
  contractAddresses: string[];
}

/**
 * Alchemy's NFT v3 batch methods under the JSON-RPC URL form (`POST {url}/getNFTMetadataBatch`), scope
 * data:read. Charged in the handler, per item, once the body is read: a batch of 100 tokens costs 100
 * getNFTMetadata calls.
 */
export async function alchemyV3NftBatchRoutes(app: FastifyInstance, deps: BatchDeps) {
  app.post(
    `${v3Base}/getNFTMetadataBatch`,
    {
      config: { dataQuery: true, scope: 'data:read', methodName: 'getNFTMetadataBatch' },
      // The network (and whether the key may use it) before the body: a test key on a mainnet is a 403 whatever it sends.
      preValidation: async (request: FastifyRequest) => void evmNetwork(deps.chains, request),
      errorHandler: chargedErrorHandler(deps),
      schema: {
        ...v3Doc(
          'Metadata of up to 100 NFTs (Alchemy v3)',
          `Each token as getNFTMetadata answers it, in the order given; a token of an address that is no NFT contract is answered with tokenType NOT_A_CONTRACT or NO_SUPPORTED_NFT_STANDARD and the reason in raw.error. ${restComputeUnits['nfts.metadata']} compute units a token; with refreshCache true each is fetched again, ${restComputeUnits['nfts.refresh']} a token.`,
        ),
        params: V3Params,
        body: NftMetadataBatchBody,
        response: { 200: V3NftBatchResponse, ...v3Errors },
      },
    },
    async (request, reply) => {
      const body = request.body as TokensBody;
      const network = evmNetwork(deps.chains, request);
      const tokens = batchTokens(body);
      // Named as the client wrote them, as the query forms name theirs.
      assertContractsListed(
        request.principal!,
        body.tokens.map((token) => token.contractAddress),
      );
      const refresh = body.refreshCache === true;
      const perToken = restComputeUnits[refresh ? 'nfts.refresh' : 'nfts.metadata']!;
      await chargeItems(deps, request, reply, perToken * tokens.length, 'tokens');
      return deps.v3.nftMetadataBatch(network, tokens, refresh);
    },
  );

  app.post(
    `${v3Base}/getContractMetadataBatch`,
    {
      config: { dataQuery: true, scope: 'data:read', methodName: 'getContractMetadataBatch' },
      preValidation: async (request: FastifyRequest) => void evmNetwork(deps.chains, request),
      errorHandler: chargedErrorHandler(deps),
      schema: {
        ...v3Doc(
          'Metadata of up to 100 NFT contracts (Alchemy v3)',
          `Each contract as getContractMetadata answers it, in the order given; an address that is no NFT contract is answered with tokenType NOT_A_CONTRACT or NO_SUPPORTED_NFT_STANDARD. ${restComputeUnits['nfts.collection']} compute units a contract.`,
        ),
        params: V3Params,
        body: ContractMetadataBatchBody,
        response: { 200: V3ContractBatchResponse, ...v3Errors },
      },
    },
    async (request, reply) => {
      const { contractAddresses } = request.body as ContractsBody;
      const network = evmNetwork(deps.chains, request);
      const contracts = contractAddresses.map((address, index) => parseAddressParam(`contractAddresses[${index}]`, address));
      assertContractsListed(request.principal!, contractAddresses);
      await chargeItems(deps, request, reply, restComputeUnits['nfts.collection']! * contracts.length, 'contractAddresses');
      return deps.v3.contractMetadataBatch(network, contracts);
    },
  );
}

function batchTokens(body: TokensBody): BatchToken[] {
  return body.tokens.map((token, index) => ({
    contract: parseAddressParam(`tokens[${index}].contractAddress`, token.contractAddress),
    tokenId: parseTokenId(String(token.tokenId), `tokens[${index}].tokenId`),
  }));
}

/**
 * Whatever refuses the request before its items were charged (a body the schema refuses, an unknown
 * network, an unlisted contract) still counts it as one request of 0 CU, with the limit headers.
 */
function chargedErrorHandler(deps: BatchDeps) {
  return async (error: Error, request: FastifyRequest, reply: FastifyReply) => {
    let answer = error;
    if (request.principal !== undefined && request.computeUnitsCharged === undefined) {
      try {
        request.computeUnitsCharged = 0;
        await chargeRequest(deps, reply, request.principal, 0);
      } catch (refused) {
        answer = refused as Error;
      }
    }
    return errorHandler(answer, request, reply);
  };
}

async function chargeItems(
  deps: BatchDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  computeUnits: number,
  itemsParameter: string,
) {
  request.computeUnitsCharged = 0;
  await chargeRequest(deps, reply, request.principal!, computeUnits, itemsParameter);
  request.computeUnitsCharged = computeUnits;
}
