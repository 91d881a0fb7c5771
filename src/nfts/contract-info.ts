import type { Address } from 'viem';
import type { Network } from '../chains/registry.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import type { ChainReads } from './chain-reads.ts';
import { createTtlCache } from './ttl-cache.ts';

export const networkName = (network: Network) => `${network.config.chain}/${network.config.network}`;

// A contract's standard and name do not change in practice; an hour bounds the damage of a redeploy
// at the same address (CREATE2 after selfdestruct, a devnet reset). Failures are not cached.
const contractInfoTtlMs = 60 * 60 * 1000;
const maxContracts = 10_000;

/** The standard and name of NFT contracts, read from chain once an hour at most. */
export function createContractInfo(readsFor: (network: Network) => ChainReads) {
  const standards = createTtlCache<NftStandard>(maxContracts);
  const names = createTtlCache<string | null>(maxContracts);
  return {
    async standard(network: Network, contract: Address): Promise<NftStandard> {
      const key = `${networkName(network)}/${contract}`;
      const cached = standards.get(key);
      if (cached) return cached;
      const standard = await readsFor(network).detectStandard(contract, networkName(network));
      standards.set(key, standard, contractInfoTtlMs);
      return standard;
    },

    /** The collection's `name()`, or null when it has none. */
    async name(network: Network, contract: Address): Promise<string | null> {
      const key = `${networkName(network)}/${contract}`;
      const cached = names.get(key);
      if (cached !== undefined) return cached;
      const name = await readsFor(network).read<string>(contract, 'name');
      const value = name.ok && name.value.trim() !== '' ? name.value : null;
      names.set(key, value, contractInfoTtlMs);
      return value;
    },
  };
}

export type ContractInfo = ReturnType<typeof createContractInfo>;
