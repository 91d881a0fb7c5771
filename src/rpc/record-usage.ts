import type { Principal } from '../auth/principal.ts';
import type { Network } from '../chains/registry.ts';
import type { ParsedRpcBody } from '../jsonrpc/messages.ts';
import { computeUnitsFor, evmComputeUnits } from '../limits/compute-units.ts';
import { solanaComputeUnits, solanaComputeUnitsFor } from '../limits/solana-compute-units.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import type { StatusClass } from '../usage/status-class.ts';
import type { RpcPlan } from './proxy.ts';

/** A request refused before its body was read as JSON-RPC (unknown network, bad JSON, 429 first). */
export const unparsedMethod = '(unparsed)';
/** A call without a usable method name: not an object, no string method, or a name no node has. */
export const invalidMethod = '(invalid)';

/** Node-specific methods (anvil_*, alchemy_*...) are kept by name; anything else is not a method name. */
const methodNamePattern = /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/;

const names = new WeakMap<Network, string>();

function networkName(network: Network): string {
  let name = names.get(network);
  if (name === undefined) {
    name = `${network.config.chain}/${network.config.network}`;
    names.set(network, name);
  }
  return name;
}

function methodOf(call: unknown): string {
  if (call === null || typeof call !== 'object') return invalidMethod;
  const method = (call as { method?: unknown }).method;
  if (typeof method !== 'string') return invalidMethod;
  if (Object.hasOwn(evmComputeUnits, method) || Object.hasOwn(solanaComputeUnits, method)) return method;
  return methodNamePattern.test(method) ? method : invalidMethod;
}

/**
 * Counts one JSON-RPC request: each call of a batch as one request with its method and the compute
 * units it was charged (none when the request was refused before the charge, or by it).
 */
export function recordRpcUsage(
  usage: UsageRecorder,
  principal: Principal,
  network: Network | undefined,
  parsed: ParsedRpcBody | undefined,
  plan: RpcPlan | undefined,
  statusClass: StatusClass,
  charged: boolean,
): void {
  const { accountId, keyId } = principal;
  const where = network === undefined ? '' : networkName(network);
  if (parsed === undefined) {
    usage.record(accountId, keyId, where, unparsedMethod, statusClass, 0);
    return;
  }
  const costOf = network?.config.kind === 'solana' ? solanaComputeUnitsFor : computeUnitsFor;
  const count = parsed.batch ? parsed.calls.length : 1;
  for (let index = 0; index < count; index++) {
    const checked = parsed.batch ? parsed.calls[index]! : parsed.call;
    const call = checked.ok ? checked.call : undefined;
    const method = methodOf(call);
    // The plan's verdict, not the parse's: a batch call without its scope is answered, not charged.
    const cost = charged && call !== undefined && plan?.calls[index]?.ok ? costOf(call.method, call.params) : 0;
    usage.record(accountId, keyId, where, method, statusClass, cost);
  }
}
