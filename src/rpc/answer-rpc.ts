import { assertNetworkAccess, assertScope, type Principal } from '../auth/principal.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import { chargeRequest, type HeaderSink } from '../http/charge.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { RpcCache } from './cache/rpc-cache.ts';
import { parseRpcBody } from './jsonrpc.ts';
import { forwardRpcRequest, planRpcRequest, type RpcPlan } from './proxy.ts';

export interface RpcRouteDeps {
  chains: ChainRegistry;
  limiter: RateLimiter;
  metrics: Metrics;
  rpcCache?: RpcCache;
}

/** Largest JSON-RPC body accepted: room for a 100-call batch of large raw transactions. */
export const rpcBodyLimit = 5 * 1024 * 1024;

/**
 * `POST /v1/rpc/{chain}/{network}` after authentication, whichever server path received it: looks the
 * network up, applies access, scopes and method policy, charges the request and forwards it. Returns
 * the JSON text to answer with ('' when there is none: notifications); refusals are thrown.
 */
export async function answerRpc(
  deps: RpcRouteDeps,
  reply: HeaderSink,
  principal: Principal,
  chain: string,
  networkName: string,
  rawBody: string,
): Promise<string> {
  let network: Network;
  let plan: RpcPlan;
  try {
    network = deps.chains.get(chain, networkName);
    assertNetworkAccess(principal, network.config);
    if (!principal.scopes.has('rpc:read') && !principal.scopes.has('rpc:write')) assertScope(principal, 'rpc:read');
    plan = planRpcRequest(principal, network, parseRpcBody(rawBody));
  } catch (error) {
    // A refused request still counts as a request (and answers with the limit headers).
    await chargeRequest(deps, reply, principal, 0);
    throw error;
  }
  await chargeRequest(deps, reply, principal, plan.computeUnits);
  return forwardRpcRequest(deps, network, plan, rawBody);
}
