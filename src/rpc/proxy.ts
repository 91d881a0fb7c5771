import { type ChainCaller, resultOf } from '../alchemy/chain-caller.ts';
import type { EnhancedMethods } from '../alchemy/enhanced-methods.ts';
import { enhancedMethodUnavailable, isDataMethod, isEnhancedMethod } from '../alchemy/method-names.ts';
import type { Principal } from '../auth/principal.ts';
import { blockNumberAtLeast } from '../chains/cluster-tip.ts';
import type { Network } from '../chains/registry.ts';
import { rateLimitedAnswer } from '../chains/upstream-refusal.ts';
import { forbidden } from '../core/errors.ts';
import {
  type CheckedCall,
  clip,
  formatCall,
  isCacheableCall,
  type JsonRpcCall,
  type JsonRpcId,
  jsonRpcErrorCodes,
  type ParsedRpcBody,
  paramsJsonOf,
  refusedCall,
  rpcErrorText,
} from '../jsonrpc/messages.ts';
import { computeUnitsFor, evmComputeUnits } from '../limits/compute-units.ts';
import { solanaComputeUnits, solanaComputeUnitsFor } from '../limits/solana-compute-units.ts';
import type { CounterChild, HistogramChild, Metrics } from '../observability/metrics.ts';
import { inSpan, tracingOn } from '../tracing/tracing.ts';
import type { RpcCache } from './cache/rpc-cache.ts';
import { principalCallRefusal } from './call-restrictions.ts';
import { oneAtATime } from './data-calls.ts';
import { methodAccess } from './method-policy.ts';
import { sendUpstream } from './upstream-call.ts';

/** A request after policy: what to forward, what to answer at once, and what it costs. */
export interface RpcPlan {
  readonly batch: boolean;
  readonly calls: readonly CheckedCall[];
  readonly computeUnits: number;
}

/**
 * Applies scopes, method policy and the key's `methods`/`contracts` restrictions to each call. A single
 * call without its scope, or refused by a restriction, is a 403 for the request; inside a batch it is
 * that call's JSON-RPC error (`scope_missing`, -32010), the others go on.
 */
export function planRpcRequest(principal: Principal, network: Network, parsed: ParsedRpcBody): RpcPlan {
  const calls = parsed.batch
    ? parsed.calls.map((call) => checkCall(principal, network, call, true))
    : [checkCall(principal, network, parsed.call, false)];
  let computeUnits = 0;
  const costOf = network.config.kind === 'solana' ? solanaComputeUnitsFor : computeUnitsFor;
  for (const checked of calls) if (checked.ok) computeUnits += costOf(checked.call.method, checked.call.params);
  return { batch: parsed.batch, calls, computeUnits };
}

/** Subscriptions live on a connection: over HTTP they are refused here, never forwarded (the WebSocket answers them itself). */
const subscriptionMethods = new Set(['eth_subscribe', 'eth_unsubscribe']);

function checkCall(principal: Principal, network: Network, checked: CheckedCall, batch: boolean): CheckedCall {
  if (!checked.ok) return checked;
  const { call } = checked;
  const { kind, devMethods, chain, network: name } = network.config;
  const access = methodAccess(kind, call.method, devMethods);
  if (!access.allowed) {
    return refusedCall(call, {
      code: jsonRpcErrorCodes.method_not_found,
      message: `the method '${clip(call.method)}' is not available on ${chain}/${name}`,
    });
  }
  if (kind === 'evm' && subscriptionMethods.has(call.method)) {
    // A node over HTTP cannot push: geth answers "notifications not supported"; a provider's answer varies.
    const message = `the method '${call.method}' needs a WebSocket: connect to /v1/ws/${chain}/${name} (see docs/websocket.md)`;
    return refusedCall(call, { code: jsonRpcErrorCodes.method_not_found, message });
  }
  const unavailable = isEnhancedMethod(call.method) ? enhancedMethodUnavailable(call.method, network.config) : undefined;
  if (unavailable !== undefined) {
    const message = `the method '${call.method}' is not available on ${chain}/${name}: ${unavailable}`;
    return refusedCall(call, { code: jsonRpcErrorCodes.method_not_found, message });
  }
  if (!principal.scopes.has(access.scope)) {
    const message = `this API key lacks the scope '${access.scope}' needed for ${clip(call.method)}`;
    if (!batch) throw forbidden(message);
    return refusedCall(call, { code: jsonRpcErrorCodes.scope_missing, message });
  }
  const refusal = principal.restrictions === undefined ? undefined : principalCallRefusal(principal, call.method, call.params);
  if (refusal !== undefined) {
    if (!batch) throw forbidden(refusal);
    return refusedCall(call, { code: jsonRpcErrorCodes.scope_missing, message: refusal });
  }
  return checked;
}

/**
 * Forwards the plan upstream and returns the JSON text to answer with ('' when there is none:
 * notifications). Each call is forwarded as `formatCall` rebuilds it, never as the client's text; a
 * batch's calls run concurrently and the answers keep the request's order. A call no upstream has the
 * budget for gets its -32005 error, but with `rateLimitAsStatus` (the HTTP endpoint) a single call's
 * `UpstreamsRateLimited` is thrown, to become a 429 with Retry-After.
 */
export async function forwardRpcRequest(
  deps: ForwardDeps,
  network: Network,
  plan: RpcPlan,
  options: { rateLimitAsStatus?: boolean } = {},
): Promise<string> {
  if (!plan.batch) {
    const checked = plan.calls[0]!;
    if (options.rateLimitAsStatus && checked.ok && !isEnhancedMethod(checked.call.method))
      return forwardOne(deps, network, checked);
    return answerRpcCall(deps, network, checked);
  }
  // Data calls (index reads) one at a time: a batch of them holds one database connection, not one each.
  const serial = oneAtATime();
  const answers = await Promise.all(
    plan.calls.map((checked) =>
      checked.ok && isDataMethod(checked.call.method)
        ? serial(() => Promise.resolve(answerRpcCall(deps, network, checked)))
        : answerRpcCall(deps, network, checked),
    ),
  );
  // Notifications have no place in a batch's answer; a batch of only notifications has no answer at all.
  const answered = answers.filter((answer) => answer !== '');
  return answered.length === 0 ? '' : `[${answered.join(',')}]`;
}

/**
 * One call of a plan as JSON text: forwarded (through the cache) when it passed, answered here when it
 * is one of Alchemy's enhanced methods, else its JSON-RPC error; '' for a notification. The bundler's
 * endpoint answers the chain's methods with it too.
 */
export function answerRpcCall(deps: ForwardDeps, network: Network, checked: CheckedCall): Promise<string> | string {
  // A refused notification gets no answer, as a forwarded one gets none (JSON-RPC 2.0, section 4.1).
  if (!checked.ok) return checked.notification ? '' : rpcErrorText(checked.id, checked.error);
  if (isEnhancedMethod(checked.call.method)) return answerEnhanced(deps, network, checked.call);
  return forwardAnswering(deps, network, checked);
}

/** `forwardOne`, a call refused for want of upstream budget answered with its -32005 error. */
function forwardAnswering(deps: ForwardDeps, network: Network, checked: CheckedCall & { ok: true }): Promise<string> {
  return forwardOne(deps, network, checked).catch(rateLimitedAnswer(checked.call.id));
}

export interface ForwardDeps {
  metrics: Metrics;
  /** Absent: every call goes upstream. */
  rpcCache?: RpcCache;
  /** Alchemy's enhanced methods; absent: they answer -32601 on this endpoint. */
  enhanced?: EnhancedMethods;
}

/** An enhanced method, answered by Blockyard itself: its chain reads go through `forwardOne` (cache, pool). */
async function answerEnhanced(deps: ForwardDeps, network: Network, call: JsonRpcCall): Promise<string> {
  countCall(deps, network, call.method);
  if (call.id === undefined) return '';
  const { chain, network: name } = network.config;
  if (deps.enhanced === undefined || !isEnhancedMethod(call.method)) {
    const message = `the method '${call.method}' is not available on this endpoint of ${chain}/${name}: use POST /v1/rpc/${chain}/${name}`;
    return rpcErrorText(call.id, { code: jsonRpcErrorCodes.method_not_found, message });
  }
  const chainCall: ChainCaller = async (method, params) =>
    resultOf(await forwardAnswering(deps, network, { ok: true, call: { jsonrpc: '2.0', id: 1, method, params: [...params] } }));
  return deps.enhanced.answer(network, { ...call, method: call.method }, chainCall);
}

/** Per network: the call counters by method label and the upstream timer, bound once (network objects live as long as their service). */
interface NetworkMeters {
  readonly calls: Map<string, CounterChild>;
  readonly upstream: HistogramChild;
}
const metersByNetwork = new WeakMap<Network, NetworkMeters>();

function metersFor(metrics: Metrics, network: Network): NetworkMeters {
  let meters = metersByNetwork.get(network);
  if (meters === undefined) {
    const { chain, network: name } = network.config;
    meters = { calls: new Map(), upstream: metrics.upstreamDurationChild(chain, name) };
    metersByNetwork.set(network, meters);
  }
  return meters;
}

/** Counts a call of `method`; returns the network's meters. */
function countCall(deps: ForwardDeps, network: Network, method: string): NetworkMeters {
  const meters = metersFor(deps.metrics, network);
  const label = methodLabel(method);
  let counter = meters.calls.get(label);
  if (counter === undefined) {
    counter = deps.metrics.rpcCallsChild(network.config.chain, network.config.network, label);
    meters.calls.set(label, counter);
  }
  counter.inc();
  return meters;
}

/**
 * One call through the cache to the upstreams, in a span of its own when tracing is on (the cache's
 * outcome and each upstream attempt inside it). Its attributes: the method's metrics label (a client's
 * own method name is not shown), the chain and the network; never the params.
 */
function forwardOne(deps: ForwardDeps, network: Network, checked: CheckedCall & { ok: true }): Promise<string> {
  if (!tracingOn()) return forwardOneCall(deps, network, checked);
  const method = methodLabel(checked.call.method);
  const attributes = {
    'rpc.system': 'jsonrpc',
    'rpc.method': method,
    'blockyard.chain': network.config.chain,
    'blockyard.network': network.config.network,
  };
  return inSpan(`jsonrpc ${method}`, attributes, () => forwardOneCall(deps, network, checked));
}

function forwardOneCall(deps: ForwardDeps, network: Network, checked: CheckedCall & { ok: true }): Promise<string> {
  const { call } = checked;
  const timer = countCall(deps, network, call.method).upstream;
  if (answersNoAccounts(network, call.method)) return Promise.resolve(call.id === undefined ? '' : noAccountsText(call.id));
  const paramsJson = paramsJsonOf(call);
  const body = formatCall(call, paramsJson);
  const answer =
    // Notifications (no id) get no answer: never cached or shared.
    !deps.rpcCache || !isCacheableCall(call)
      ? sendUpstream(deps.metrics, timer, network, call, body)
      : deps.rpcCache.forward(
          network,
          call,
          body,
          (text, sent) => sendUpstream(deps.metrics, timer, network, call, text, sent),
          paramsJson,
        );
  return call.method === 'eth_blockNumber' && network.clusterTip.shared
    ? answer.then((text) => atClusterTip(network, text))
    : answer;
}

/**
 * `eth_accounts` where the node's accounts are not served (no `dev_methods`): the empty list, as the
 * providers answer it (clients such as ethers' `JsonRpcProvider.listAccounts` ask it at start), never
 * the node's own accounts.
 */
function answersNoAccounts(network: Network, method: string): boolean {
  return method === 'eth_accounts' && network.config.kind === 'evm' && !network.config.devMethods;
}

const noAccountsText = (id: JsonRpcId) => JSON.stringify({ jsonrpc: '2.0', id, result: [] });

/**
 * An eth_blockNumber answer (a cache hit too) as the API processes agree: this process's tip is
 * published first when it is the highest, and a higher one another process served is answered instead.
 */
async function atClusterTip(network: Network, text: string): Promise<string> {
  return blockNumberAtLeast(text, await network.clusterTip.agreed());
}

/** Known methods by name, the rest as one label: clients choose method names, metrics must stay bounded. */
function methodLabel(method: string): string {
  return Object.hasOwn(evmComputeUnits, method) || Object.hasOwn(solanaComputeUnits, method) ? method : 'other';
}
