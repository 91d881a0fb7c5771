import type { Principal } from '../auth/principal.ts';
import type { Network } from '../chains/registry.ts';
import { resolveRestNetwork } from '../chains/resolve-rest-network.ts';
import { invalidRequest } from '../core/errors.ts';

/**
 * The EVM network a policy sponsors on, from a body's `chain` and optional `network`. They are body
 * fields, so an unknown one is a 400 naming it (a path's unknown chain is a 404); the key's
 * environment picks the default network as on every REST path, and a network of the other
 * environment is 403.
 */
export function resolvePolicyNetwork(
  networks: readonly Network[],
  principal: Principal,
  chain: string,
  network?: string,
): Network {
  const ofChain = networks.filter((candidate) => candidate.config.chain === chain);
  if (ofChain.length === 0) {
    const known = [...new Set(networks.map((candidate) => candidate.config.chain))].join(', ');
    throw invalidRequest('chain', `unknown chain '${chain}' (this service serves ${known})`);
  }
  if (network !== undefined && !ofChain.some((candidate) => candidate.config.network === network)) {
    const known = ofChain.map((candidate) => candidate.config.network).join(', ');
    throw invalidRequest('network', `chain '${chain}' has no network '${network}' (this service serves ${known})`);
  }
  const target = resolveRestNetwork(networks, principal, chain, network);
  if (target.config.kind !== 'evm') {
    throw invalidRequest('chain', `gas is sponsored on EVM chains; '${chain}' is a ${target.config.kind} chain`);
  }
  return target;
}
