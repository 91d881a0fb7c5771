import type { Principal } from '../auth/principal.ts';
import { assertNetworkAccess } from '../auth/principal.ts';
import { forbidden, notFound } from '../core/errors.ts';
import type { Network } from './registry.ts';

/**
 * REST paths carry only `{chain}`: a live key gets the chain's mainnet, a test key its first
 * testnet; `?network=` picks another one the key may use (design.md, "Chains and networks").
 */
export function resolveRestNetwork(networks: readonly Network[], principal: Principal, chain: string, network?: string): Network {
  const ofChain = networks.filter((candidate) => candidate.config.chain === chain);
  if (ofChain.length === 0) {
    const known = [...new Set(networks.map((candidate) => candidate.config.chain))].join(', ');
    throw notFound(`unknown chain '${chain}' (configured: ${known})`);
  }
  if (network !== undefined) {
    const chosen = ofChain.find((candidate) => candidate.config.network === network);
    if (!chosen)
      throw notFound(
        `chain '${chain}' has no network '${network}' (configured: ${ofChain.map((n) => n.config.network).join(', ')})`,
      );
    assertNetworkAccess(principal, chosen.config);
    return chosen;
  }
  const wantTestnet = principal.environment === 'test';
  const chosen =
    ofChain.find(
      (candidate) => candidate.config.testnet === wantTestnet && (wantTestnet || candidate.config.network === 'mainnet'),
    ) ??
    ofChain.find((candidate) => candidate.config.testnet === wantTestnet) ??
    // A dashboard session may use every network: a chain without a testnet gives its mainnet.
    (principal.session ? ofChain[0] : undefined);
  if (!chosen) {
    throw forbidden(
      `${principal.environment} keys need a ${wantTestnet ? 'testnet' : 'mainnet'} of '${chain}', and none is configured (configured: ${ofChain.map((n) => n.config.network).join(', ')})`,
    );
  }
  return chosen;
}
