import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ChainRegistry } from '../chains/registry.ts';
import { resolveRestNetwork } from '../chains/resolve-rest-network.ts';

/**
 * The JSON-RPC proxy resolves its network first in its handler, charging the refusal as the fast path
 * in front of it does (src/rpc/answer-rpc.ts): its answers stay the same on both paths.
 */
const jsonRpcProxyRoutes = new Set(['/v1/rpc/:chain/:network', '/v1/rpc/:chain/:network/:apiKey']);

/**
 * A preParsing hook: a route's network (its `{chain}`, and `{network}` or `?network=`) is resolved
 * before its body is read and its input validated, so a key that may not use the network (a test key
 * on a mainnet), or a network that does not exist, gets its 403 or 404 whatever else the request says.
 * Handlers resolve it again for themselves; this only orders the refusals. Routes without `{chain}`
 * (a body names the chain) are left to their validation.
 */
export function networkFirst(chains: ChainRegistry) {
  return async <Payload>(request: FastifyRequest, _reply: FastifyReply, payload: Payload): Promise<Payload> => {
    const params = (request.params ?? {}) as Record<string, unknown>;
    if (typeof params.chain !== 'string' || request.principal === undefined) return payload;
    if (jsonRpcProxyRoutes.has(request.routeOptions.url ?? '')) return payload;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const network = 'network' in params ? params.network : query.network;
    // A value that is no plain name (a NUL, a list from a repeated parameter) is the input rules' 400 to give.
    if (!isName(params.chain) || (network !== undefined && !isName(network))) return payload;
    resolveRestNetwork(chains.list(), request.principal, params.chain, network);
    return payload;
  };
}

const isName = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(value);
