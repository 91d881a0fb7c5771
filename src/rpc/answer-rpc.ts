import type { EnhancedMethods } from '../alchemy/enhanced-methods.ts';
import { assertNetworkAccess, assertScope, type Principal } from '../auth/principal.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import { chargeRequest, type HeaderSink } from '../http/charge.ts';
import { toAppError } from '../http/error-handler.ts';
import type { ParsedRpcBody } from '../jsonrpc/messages.ts';
import type { DataQuerySlots } from '../limits/data-query-slots.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import { statusClassOf } from '../usage/status-class.ts';
import type { RpcCache } from './cache/rpc-cache.ts';
import { takeDataSlot } from './data-calls.ts';
import { parseRpcBody } from './parse-call.ts';
import { forwardRpcRequest, planRpcRequest, type RpcPlan } from './proxy.ts';
import { recordRpcUsage } from './record-usage.ts';

export interface RpcRouteDeps {
  chains: ChainRegistry;
  limiter: RateLimiter;
  metrics: Metrics;
  rpcCache?: RpcCache;
  /** Absent: requests are not counted for the usage endpoint. */
  usage?: UsageRecorder;
  /** Alchemy's enhanced methods (alchemy_getAssetTransfers…); absent: they answer -32601. */
  enhanced?: EnhancedMethods;
  /** The per-account cap on data queries running at once; absent: no cap. */
  dataQueries?: DataQuerySlots;
}

/** Largest JSON-RPC body accepted: room for a 100-call batch of large raw transactions, or 1,000 ordinary calls. */
export const rpcBodyLimit = 5 * 1024 * 1024;

/**
 * `POST /v1/rpc/{chain}/{network}` after authentication, whichever server path received it: looks the
 * network up, applies access, scopes and method policy, charges the request and forwards it. Returns
 * the JSON text to answer with ('' when there is none: notifications); refusals are thrown. Each call
 * is counted for the usage endpoint with the class of the HTTP status the request gets.
 */
export async function answerRpc(
  deps: RpcRouteDeps,
  reply: HeaderSink,
  principal: Principal,
  chain: string,
  networkName: string,
  rawBody: string,
): Promise<string> {
  let network: Network | undefined;
  let parsed: ParsedRpcBody | undefined;
  let plan: RpcPlan | undefined;
  let charged = false;
  let release: (() => void) | undefined;
  try {
    try {
      network = deps.chains.get(chain, networkName);
      assertNetworkAccess(principal, network.config);
      // A data:read key reaches the endpoint for Alchemy's enhanced methods; each call is checked for its own scope.
      const { scopes } = principal;
      if (!scopes.has('rpc:read') && !scopes.has('rpc:write') && !scopes.has('data:read')) assertScope(principal, 'rpc:read');
      parsed = parseRpcBody(rawBody);
      plan = planRpcRequest(principal, network, parsed);
      release = await takeDataSlot(deps.dataQueries, principal, plan.calls);
    } catch (error) {
      // A refused request still counts as a request (and answers with the limit headers).
      await chargeRequest(deps, reply, principal, 0);
      throw error;
    }
    await chargeRequest(deps, reply, principal, plan.computeUnits, parsed.batch ? 'batch' : 'method');
    charged = true;
    // A single call every upstream is too busy for is this request's 429 (with Retry-After).
    const answer = await forwardRpcRequest(deps, network, plan, { rateLimitAsStatus: true });
    if (deps.usage !== undefined) recordRpcUsage(deps.usage, principal, network, parsed, plan, '2xx', true);
    return answer;
  } catch (error) {
    if (deps.usage !== undefined) {
      const statusClass = statusClassOf(toAppError(error as Error).status);
      recordRpcUsage(deps.usage, principal, network, parsed, plan, statusClass, charged);
    }
    throw error;
  } finally {
    release?.();
  }
}
