import type { FastifyRequest } from 'fastify';
import type { ChainRegistry, Network } from '../../chains/registry.ts';
import { resolveRestNetwork } from '../../chains/resolve-rest-network.ts';
import { notFound } from '../../core/errors.ts';
import { errorResponses } from '../../http/schemas.ts';

/** What every Alchemy NFT v3 route shares: its place under the JSON-RPC URL form, its errors, its docs. */
export const v3Base = '/v1/rpc/:chain/:network/:apiKey';

export const v3Errors = errorResponses(400, 401, 403, 404, 429, 503);

export const v3Doc = (summary: string, description: string) => ({
  summary,
  description: `${description} Alchemy's NFT API v3 name and answer shape, for alchemy-sdk's nft namespace with \`new Alchemy({ url })\`: see docs/drop-in.md.`,
  tags: ['nfts'],
});

/** The route's network, which the key must be allowed to use; NFT data is for EVM chains only. */
export function evmNetwork(chains: ChainRegistry, request: FastifyRequest): Network {
  const { chain, network } = request.params as { chain: string; network: string };
  const target = resolveRestNetwork(chains.list(), request.principal!, chain, network);
  if (target.config.kind !== 'evm') throw notFound(`NFT data is for EVM chains; '${chain}' is a ${target.config.kind} chain`);
  return target;
}
