import type { Principal } from '../auth/principal.ts';
import { restrictionRefusal } from '../auth/restrictions/refusal.ts';
import { forbidden } from '../core/errors.ts';
import { clip } from '../jsonrpc/messages.ts';
import type { KeyRestrictions } from '../keys/key-settings.ts';
import { contractsNamedBy } from './call-contracts.ts';
import { isKnownRpcMethod } from './known-methods.ts';

/** A key's `methods` and `contracts` lists as sets; undefined where the list is absent or empty (no restriction). */
interface CompiledCallRestrictions {
  readonly methods?: ReadonlySet<string>;
  /** Lower-case addresses. */
  readonly contracts?: ReadonlySet<string>;
}

/** Principals are cached with their restrictions object: each is compiled once, not per call. */
const compiledByRestrictions = new WeakMap<Readonly<KeyRestrictions>, CompiledCallRestrictions>();

function compile(restrictions: Readonly<KeyRestrictions>): CompiledCallRestrictions {
  let compiled = compiledByRestrictions.get(restrictions);
  if (compiled === undefined) {
    const methods = stringsOf(restrictions.methods);
    const contracts = stringsOf(restrictions.contracts).map((address) => address.toLowerCase());
    compiled = {
      ...(methods.length > 0 ? { methods: new Set(methods) } : {}),
      ...(contracts.length > 0 ? { contracts: new Set(contracts) } : {}),
    };
    compiledByRestrictions.set(restrictions, compiled);
  }
  return compiled;
}

function stringsOf(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * Why the key's `methods` or `contracts` list refuses one JSON-RPC call (the message of a 403
 * `forbidden`, or of a -32010 error inside a batch), or undefined when the call may run.
 *
 * @example callRefusal({ methods: ['eth_call'] }, 'eth_sendRawTransaction', ['0x02…'])
 * // "refused by this API key's restrictions.methods: the method 'eth_sendRawTransaction' is not listed"
 */
export function callRefusal(restrictions: Readonly<KeyRestrictions>, method: string, params: unknown): string | undefined {
  const { methods, contracts } = compile(restrictions);
  if (methods !== undefined && !methods.has(method))
    return restrictionRefusal('methods', `the method '${clip(method)}' is not listed`);
  if (contracts === undefined) return undefined;
  const named = contractsNamedBy(method, params);
  if (named === undefined) {
    // The known methods that name no contract pass. Any other eth_* method still reaches the node, and
    // what it might run is unknown here (a new call variant, a node-control method): refused, not guessed.
    if (isKnownRpcMethod(method)) return undefined;
    return restrictionRefusal('contracts', `the method '${clip(method)}' cannot be checked against the list`);
  }
  if ('missing' in named) return restrictionRefusal('contracts', named.missing);
  for (const contract of named.contracts) {
    if (typeof contract !== 'string' || !contracts.has(contract.toLowerCase())) {
      const shown = typeof contract === 'string' ? clip(contract) : clip(JSON.stringify(contract) ?? String(contract));
      return restrictionRefusal('contracts', `the contract ${shown} is not listed`);
    }
  }
  return undefined;
}

/**
 * `callRefusal` for the caller: keys without restrictions and dashboard sessions (which are not keys)
 * pass at the cost of one property check, the hot path's only one.
 */
export function principalCallRefusal(principal: Principal, method: string, params: unknown): string | undefined {
  if (principal.restrictions === undefined || principal.session !== undefined) return undefined;
  return callRefusal(principal.restrictions, method, params);
}

/** Throws the 403 `forbidden` of a single call the key's restrictions refuse. */
export function assertCallAllowed(principal: Principal, method: string, params: unknown): void {
  const refusal = principalCallRefusal(principal, method, params);
  if (refusal !== undefined) throw forbidden(refusal);
}
