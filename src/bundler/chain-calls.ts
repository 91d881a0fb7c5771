import type { Principal } from '../auth/principal.ts';
import type { Network } from '../chains/registry.ts';
import type { CheckedCall } from '../jsonrpc/messages.ts';
import { checkCallShape } from '../rpc/parse-call.ts';
import { answerRpcCall, type ForwardDeps, planRpcRequest } from '../rpc/proxy.ts';

/**
 * A call to the bundler's endpoint that is none of the bundler's own methods: the chain's JSON-RPC
 * (eth_getBalance, eth_feeHistory, eth_call…), answered by the JSON-RPC proxy's code as `POST /v1/rpc`
 * answers it: the same shape check, method allowlist, scopes, compute units, cache and upstream. A
 * smart account client given only the bundler URL (as Alchemy's and Pimlico's URLs are used) reads
 * its fees, nonces and code there.
 */
export interface ChainCall {
  readonly kind: 'chain';
  /** The proxy's verdict: a call to forward, or the JSON-RPC error it gets instead. */
  readonly checked: CheckedCall;
  /** As the proxy prices it; 0 when refused. */
  readonly computeUnits: number;
}

/**
 * Checks one call as the proxy checks a call of a batch: a key without the method's scope gets this
 * call's JSON-RPC error (-32010), not a 403. (A single call the key's restrictions refuse is a 403,
 * thrown by `checkBundlerCall` before this, as on /v1/rpc.)
 */
export function checkChainCall(call: unknown, principal: Principal, network: Network): ChainCall {
  const plan = planRpcRequest(principal, network, { batch: true, calls: [checkCallShape(call)] });
  return { kind: 'chain', checked: plan.calls[0]!, computeUnits: plan.computeUnits };
}

/** The call's answer as the proxy gives it: JSON text, '' for a notification (a call without id). */
export async function answerChainCall(deps: ForwardDeps, network: Network, call: ChainCall): Promise<string> {
  return answerRpcCall(deps, network, call.checked);
}
