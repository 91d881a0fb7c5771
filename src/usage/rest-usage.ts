import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import type { ChainRegistry } from '../chains/registry.ts';
import { resolveRestNetwork } from '../chains/resolve-rest-network.ts';
import type { UsageRecorder } from './recorder.ts';
import { statusClassOf } from './status-class.ts';

/**
 * An onResponse hook for the /v1 REST routes: counts each answered request of an authenticated key,
 * named by its route pattern (`GET /v1/tokens/:chain/balances/:address`). Routes without
 * `config.computeUnits` charge in their handler: JSON-RPC counts itself, the bundler sets
 * `request.computeUnitsCharged`.
 */
export function createRestUsageHook(deps: { usage: UsageRecorder; chains: ChainRegistry }) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const principal = request.principal;
    const computeUnits = request.computeUnitsCharged ?? request.routeOptions.config.computeUnits;
    if (principal !== undefined && computeUnits !== undefined) {
      const status = reply.statusCode;
      deps.usage.record(
        principal.accountId,
        principal.keyId,
        networkOf(deps.chains, principal, request),
        `${request.method} ${request.routeOptions.url}`,
        statusClassOf(status),
        // The guard charges before anything else; a 429 is its refusal, which charges nothing.
        status === 429 ? 0 : computeUnits,
      );
    }
    done();
  };
}

/** The network the route served: its `chain` (and `network`, path or query) parameters, as the route resolves them. */
function networkOf(chains: ChainRegistry, principal: Principal, request: FastifyRequest): string {
  const params = request.params as { chain?: unknown; network?: unknown } | undefined;
  if (typeof params?.chain !== 'string') return '';
  const query = request.query as { network?: unknown } | undefined;
  const given = params.network ?? query?.network;
  try {
    const network = resolveRestNetwork(chains.list(), principal, params.chain, typeof given === 'string' ? given : undefined);
    return `${network.config.chain}/${network.config.network}`;
  } catch {
    // Not a network of the deployment (the request got its 404): client-chosen names are not kept.
    return '';
  }
}
