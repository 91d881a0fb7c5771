import type { Address } from 'viem';
import type { Network } from '../chains/registry.ts';
import type { ChainReads } from './chain-reads.ts';
import { networkName } from './contract-info.ts';
import type { DocumentLoader } from './metadata/load-document.ts';
import { createTtlCache } from './ttl-cache.ts';

export interface ContractMetadata {
  readonly contractUri: string | null;
  readonly name: string | null;
  readonly description: string | null;
  readonly image: string | null;
  readonly banner: string | null;
  readonly error: string | null;
}

// contractURI documents change rarely and are not stored: an in-process cache keeps them off the request path.
const contractMetadataTtlMs = 10 * 60 * 1000;
const failedContractMetadataTtlMs = 60 * 1000;
const maxCachedContracts = 10_000;

function field(document: Record<string, unknown>, ...names: string[]): string | null {
  for (const name of names) {
    const value = document[name];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return null;
}

/** The `contractURI()` document of a collection (OpenSea's contract-level metadata), cached for minutes. */
export function createContractMetadata(deps: { loader: DocumentLoader; readsFor: (network: Network) => ChainReads }) {
  const cache = createTtlCache<ContractMetadata>(maxCachedContracts);

  async function load(network: Network, contract: Address): Promise<ContractMetadata> {
    const none = { name: null, description: null, image: null, banner: null };
    const uri = await deps.readsFor(network).read<string>(contract, 'contractURI');
    // No contractURI() is normal, not an error.
    if (!uri.ok || uri.value.trim() === '') return { ...none, contractUri: null, error: null };
    const loaded = await deps.loader.load(uri.value);
    if (!loaded.ok) return { ...none, contractUri: uri.value, error: loaded.reason };
    const document = loaded.document;
    return {
      contractUri: uri.value,
      name: field(document, 'name'),
      description: field(document, 'description'),
      image: field(document, 'image', 'image_url', 'logo'),
      banner: field(document, 'banner_image', 'banner_image_url', 'banner_url', 'banner'),
      error: null,
    };
  }

  return {
    async get(network: Network, contract: Address): Promise<ContractMetadata> {
      const key = `${networkName(network)}/${contract.toLowerCase()}`;
      const cached = cache.get(key);
      if (cached) return cached;
      const loaded = await load(network, contract);
      cache.set(key, loaded, loaded.error ? failedContractMetadataTtlMs : contractMetadataTtlMs);
      return loaded;
    },
    /** The contract announced a new document (ERC-7572): the next request reads it. `network` is `chain/network`. */
    forget(network: string, contract: string): void {
      cache.delete(`${network}/${contract.toLowerCase()}`);
    },
  };
}
