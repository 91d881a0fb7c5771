import type { Logger } from 'pino';
import type { Address } from 'viem';
import type { Network } from '../chains/registry.ts';
import { mapBounded } from '../core/map-bounded.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import type { ChainReads } from './chain-reads.ts';
import type { ContractMetadata } from './collection.ts';
import type { CollectionSpam } from './collection-spam.ts';
import { type ContractInfo, networkName } from './contract-info.ts';
import type { FloorPrice, FloorPriceSource } from './floor-price.ts';
import { type Gateways, imageGatewayUrl } from './metadata/resolve-uri.ts';
import type { CollectionFacts } from './responses.ts';
import type { NftStore } from './store.ts';
import { createTtlCache } from './ttl-cache.ts';

/** What the chain says of a collection, kept briefly: lists describe the same collections again and again. */
interface ChainFacts {
  readonly standard: NftStandard;
  readonly name: string | null;
  readonly symbol: string | null;
  /** totalSupply(); null when the contract has none (the index then counts its token ids). */
  readonly supply: number | null;
  readonly document: ContractMetadata;
}

const chainFactsTtlMs = 30_000;
const maxCachedCollections = 10_000;
/** Collections described at once for one list. */
const describeConcurrency = 16;

export interface CollectionListDeps {
  store: NftStore;
  contracts: ContractInfo;
  contractMetadata: { get(network: Network, contract: Address): Promise<ContractMetadata> };
  readsFor: (network: Network) => ChainReads;
  gateways: Gateways;
  floorPrices: FloorPriceSource | undefined;
  logger: Logger;
  spam: CollectionSpam;
}

/**
 * The collections of a list (getContractsForOwner, the contract of each NFT of a page), described as a
 * collection's own answer describes it less its owner count: the spam verdicts in one read, the index
 * counted only for contracts without totalSupply(), and the chain's facts kept for 30 seconds. A
 * contract that is not an NFT contract, or whose reads fail, is left out of the map.
 */
export function createCollectionList(deps: CollectionListDeps) {
  const cache = createTtlCache<ChainFacts>(maxCachedCollections);

  async function chainFacts(network: Network, contract: Address): Promise<ChainFacts | undefined> {
    const key = `${networkName(network)}/${contract.toLowerCase()}`;
    const cached = cache.get(key);
    if (cached) return cached;
    try {
      const reads = deps.readsFor(network);
      const [standard, name, symbol, supply, document] = await Promise.all([
        deps.contracts.standard(network, contract),
        deps.contracts.name(network, contract),
        reads.read<string>(contract, 'symbol'),
        reads.read<bigint>(contract, 'totalSupply'),
        deps.contractMetadata.get(network, contract),
      ]);
      const facts = {
        standard,
        name,
        symbol: symbol.ok && symbol.value.trim() !== '' ? symbol.value : null,
        supply: supply.ok ? Number(supply.value) : null,
        document,
      };
      cache.set(key, facts, chainFactsTtlMs);
      return facts;
    } catch {
      return undefined;
    }
  }

  return {
    async describe(network: Network, contracts: readonly Address[]): Promise<Map<string, CollectionFacts>> {
      const [facts, spam] = await Promise.all([
        mapBounded(contracts, describeConcurrency, (contract) => chainFacts(network, contract)),
        deps.spam.flags(network, contracts),
      ]);
      const uncounted = contracts.filter((_, i) => facts[i] !== undefined && facts[i]!.supply === null);
      const counted = uncounted.length
        ? await deps.store.tokenCounts(networkName(network), uncounted)
        : new Map<string, number>();
      const source = deps.floorPrices;
      const floors = await mapBounded(contracts, describeConcurrency, async (contract): Promise<FloorPrice | null> => {
        if (!source) return null;
        return source.floorPrice(network, contract).catch((error: unknown) => {
          deps.logger.warn({ err: error, contract }, 'floor price source failed');
          return null;
        });
      });
      const described = new Map<string, CollectionFacts>();
      contracts.forEach((contract, i) => {
        const found = facts[i];
        if (!found) return;
        const verdict = spam.get(contract);
        const { document } = found;
        described.set(contract, {
          contract,
          chain: network.config.chain,
          network: network.config.network,
          name: found.name ?? document.name,
          symbol: found.symbol,
          standard: found.standard,
          total_supply: found.supply ?? counted.get(contract) ?? 0,
          floor_price_eth: floors[i]?.eth ?? null,
          floor_price_usd: floors[i]?.usd ?? null,
          description: document.description,
          image_url: document.image,
          image_gateway_url: imageGatewayUrl(document.image, deps.gateways),
          banner_url: document.banner,
          contract_uri: document.contractUri,
          metadata_error: document.error,
          is_spam: verdict?.is_spam ?? false,
          spam_reasons: verdict?.spam_reasons ?? [],
          spam_confidence: verdict?.confidence ?? null,
        });
      });
      return described;
    },

    /** The contract announced a new contractURI document (ERC-7572): the next list reads it again. */
    forget(network: string, contract: string): void {
      cache.delete(`${network}/${contract.toLowerCase()}`);
    },
  };
}

export type CollectionList = ReturnType<typeof createCollectionList>;
