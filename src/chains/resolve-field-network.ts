import type { Principal } from '../auth/principal.ts';
import { invalidRequest } from '../core/errors.ts';
import type { Network } from './registry.ts';
import { resolveRestNetwork } from './resolve-rest-network.ts';

/**
 * The network a request names in fields (a body's `chain` and optional `network`, or the same query
 * parameters) rather than in its path: an unknown one is a 400 naming the field, as any bad field
 * value (a path's unknown chain is a 404: resolve-rest-network.ts). Then as on every REST path: the
 * key's environment picks the default network, and a network of the other environment is 403.
 */
export function resolveFieldNetwork(
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
  return resolveRestNetwork(networks, principal, chain, network);
}
