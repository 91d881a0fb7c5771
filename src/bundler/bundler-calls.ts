import type { Principal } from '../auth/principal.ts';
import type { Scope } from '../auth/scopes.ts';
import type { Network } from '../chains/registry.ts';
import { forbidden } from '../core/errors.ts';
import { clip } from '../jsonrpc/messages.ts';
import { evmComputeUnits, restComputeUnits } from '../limits/compute-units.ts';
import { bundlerCoreMethods } from '../rpc/bundler-method-names.ts';
import { assertCallAllowed, principalCallRefusal } from '../rpc/call-restrictions.ts';
import { paramsProblem } from '../rpc/params-shape.ts';
import { isValidId } from '../rpc/parse-call.ts';
import { type ChainCall, checkChainCall } from './chain-calls.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';

/** One element of a bundler request, as sent. */
export interface BundlerCallInput {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** A call that may run: its answer's id, method and params, and what it costs. */
export interface RunnableBundlerCall {
  readonly kind: 'bundler';
  readonly ok: true;
  readonly id: string | number | null;
  /** Sent without `id` (JSON-RPC 2.0's notification): run, and not answered. */
  readonly notification: boolean;
  readonly method: string;
  readonly params: unknown[];
  readonly computeUnits: number;
}

/** A call answered without running, with its JSON-RPC error. */
export interface RefusedBundlerCall {
  readonly kind: 'bundler';
  readonly ok: false;
  readonly id: string | number | null;
  /** Sent without `id`: its error is not answered either (JSON-RPC 2.0 answers no notification). */
  readonly notification: boolean;
  readonly error: BundlerRpcError;
}

export type CheckedBundlerCall = RunnableBundlerCall | RefusedBundlerCall;

/** A call of the bundler's endpoint: one of the bundler's own methods, or the chain's JSON-RPC. */
export type EndpointCall = CheckedBundlerCall | ChainCall;

/** With the namespaces below, the methods the bundler answers itself; any other method is the chain's. */
const bundlerMethods = new Set(bundlerCoreMethods);
/** Pimlico's extensions, ERC-7677's paymaster methods, ERC-7769's debug methods. */
const bundlerNamespaces = /^(?:pimlico_|pm_|debug_bundler_)/;

/** Whether the bundler answers a method itself; the others go to the chain as on /v1/rpc. */
export function isBundlerMethod(method: string): boolean {
  return bundlerMethods.has(method) || bundlerNamespaces.test(method);
}

/**
 * Which scopes may call a method: sending needs bundler:send; pm_* (a sponsorship) gas:manage; ERC-7769's
 * debug_bundler_* change the bundler's shared state (mempool, reputation, bundling mode): rpc:write,
 * like the node-control methods of the JSON-RPC proxy; reading, bundler:send or rpc:read.
 */
export function bundlerMethodScopes(method: string): readonly Scope[] {
  if (method === 'eth_sendUserOperation' || method === 'pimlico_sendUserOperationNow') return ['bundler:send'];
  if (method.startsWith('pm_')) return ['gas:manage'];
  if (method.startsWith('debug_bundler_')) return ['rpc:write'];
  return ['bundler:send', 'rpc:read'];
}

/**
 * The compute units of one call to the bundler's endpoint: `pm_*` at the price of `POST
 * /v1/gas/sponsor` (each one checks a policy and may sign), methods the JSON-RPC table prices at that
 * price (eth_sendUserOperation 100, eth_estimateUserOperationGas 50: each is a simulation), others at
 * `bundler.rpc`; pimlico_sendUserOperationNow as eth_sendUserOperation. A batch costs the sum.
 */
export function bundlerComputeUnitsFor(method: string): number {
  if (method.startsWith('pm_')) return restComputeUnits['gas.sponsor']!;
  // A send that also waits for its bundle: priced as the send.
  if (method === 'pimlico_sendUserOperationNow') return evmComputeUnits.eth_sendUserOperation!;
  if (Object.hasOwn(evmComputeUnits, method)) return evmComputeUnits[method]!;
  return restComputeUnits['bundler.rpc']!;
}

function isJsonRpcCall(call: BundlerCallInput): call is BundlerCallInput & { method: string } {
  return typeof call === 'object' && call !== null && call.jsonrpc === '2.0' && typeof call.method === 'string';
}

/**
 * Shape, devnet-only methods, scope and the key's `methods` restriction of one call, before anything is
 * charged or run. A method that is not the bundler's is checked as the JSON-RPC proxy checks it
 * (src/bundler/chain-calls.ts). A call the key's restrictions refuse throws a 403 when it is the
 * request's only call (`batch` false), as on /v1/rpc; in a batch it is that call's -32010.
 */
export function checkBundlerCall(call: BundlerCallInput, principal: Principal, network: Network, batch = true): EndpointCall {
  const id = typeof call?.id === 'string' || typeof call?.id === 'number' ? call.id : null;
  const shaped = isJsonRpcCall(call);
  // A request that is not valid JSON-RPC is answered even without id (with id null), as JSON-RPC 2.0 says.
  const notification = shaped && !Object.hasOwn(call, 'id');
  const refuse = (code: number, message: string, answerId = id): RefusedBundlerCall => ({
    kind: 'bundler',
    ok: false,
    id: answerId,
    notification,
    error: new BundlerRpcError(code, message),
  });
  if (!isJsonRpcCall(call)) return refuse(-32600, 'not a JSON-RPC 2.0 request: it needs jsonrpc "2.0" and a method');
  // An id the client could not get back unchanged (an object, a fraction, past 2^53): id null, as on /v1/rpc.
  if (call.id !== undefined && !isValidId(call.id))
    return refuse(-32600, "not a JSON-RPC 2.0 request: 'id' must be a string, an integer or null", null);
  const method = call.method;
  if (!isBundlerMethod(method)) {
    if (!batch) assertCallAllowed(principal, method, call.params);
    return checkChainCall(call, principal, network);
  }
  // No method is this long: refused here so that no message quotes a client's megabyte back.
  if (method.length > 64) return refuse(bundlerErrorCodes.methodNotFound, `the bundler has no method '${clip(method)}'`);
  if (method.startsWith('debug_bundler_') && !network.config.devMethods) {
    return refuse(bundlerErrorCodes.methodNotFound, `${clip(method)} is a devnet method (dev_methods: true)`);
  }
  const allowed = bundlerMethodScopes(method);
  if (!allowed.some((scope) => principal.scopes.has(scope))) {
    return refuse(-32010, `this API key lacks the scope '${allowed.join("' or '")}' for ${clip(method)}`);
  }
  // The same shape rules as every other call (src/rpc/params-shape.ts): a `Sender` or `CallData` is refused, never guessed.
  const problem = call.params !== null && typeof call.params === 'object' ? paramsProblem(call.params, method) : undefined;
  if (problem !== undefined) return refuse(bundlerErrorCodes.invalidParams, problem);
  const refusal = principal.restrictions === undefined ? undefined : principalCallRefusal(principal, method, call.params);
  if (refusal !== undefined) {
    if (!batch) throw forbidden(refusal);
    return refuse(-32010, refusal);
  }
  const params = call.params === undefined ? [] : call.params;
  if (!Array.isArray(params)) return refuse(bundlerErrorCodes.invalidParams, 'params must be an array');
  return { kind: 'bundler', ok: true, id, notification, method, params, computeUnits: bundlerComputeUnitsFor(method) };
}
