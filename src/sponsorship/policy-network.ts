import type { Principal } from '../auth/principal.ts';
import type { Network } from '../chains/registry.ts';
import { resolveFieldNetwork } from '../chains/resolve-field-network.ts';
import { invalidRequest } from '../core/errors.ts';

/**
 * The EVM network a policy sponsors on, from a body's `chain` and optional `network`: an unknown one
 * is a 400 naming it (resolve-field-network.ts).
 */
export function resolvePolicyNetwork(
  networks: readonly Network[],
  principal: Principal,
  chain: string,
  network?: string,
): Network {
  const target = resolveFieldNetwork(networks, principal, chain, network);
  if (target.config.kind !== 'evm') {
    throw invalidRequest('chain', `gas is sponsored on EVM chains; '${chain}' is a ${target.config.kind} chain`);
  }
  return target;
}
