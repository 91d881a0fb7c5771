import type { Logger } from 'pino';
import type { Address } from 'viem';
import type { Network } from '../chains/registry.ts';
import { mapBounded } from '../core/map-bounded.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import type { SpamFlags } from '../spam/verdict.ts';
import type { ChainReads } from './chain-reads.ts';
import type { ContractMetadata } from './collection.ts';
import type { CollectionSpam } from './collection-spam.ts';
import { type ContractInfo, networkName } from './contract-info.ts';
import type { FloorPrice, FloorPriceSource } from './floor-price.ts';
import { type Gateways, imageGatewayUrl } from './metadata/resolve-uri.ts';
import type { CollectionFacts, NftCollection } from './responses.ts';
import type { NftStore } from './store.ts';
import { createTtlCache } from './ttl-cache.ts';

/** What the chain says of a collection. */
interface ChainFacts {
  readonly standard: NftStandard;
  readonly name: string | null;
  readonly symbol: string | null;
  /** totalSupply(); null when the contract has none (the index then counts its token ids). */
  readonly supply: number | null;
  readonly document: ContractMetadata;
}

const listFactsTtlMs = 30_000;
const maxCachedCollections = 10_000;
/** Collections described at once for one list. */
const describeConcurrency = 16;

export interface CollectionsDeps {
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
 * Collections described from the chain, the contractURI document, the index and the spam verdicts:
 * one collection's own answer (`GET /v1/nfts/{chain}/collection/{contract}`, getContractMetadata),
 * and the collections of a list (getContractsForOwner, the contract of each NFT of a page). A list
 * leaves out the owner count, reads the spam verdicts in one query, counts the index only for
 * contracts without totalSupply(), and keeps the chain's facts for 30 seconds.
 */
export function createCollections(deps: CollectionsDeps) {
  const listCache = createTtlCache<ChainFacts>(maxCachedCollections);

  /** The standard first: a contract that is no NFT contract is a 404 before anything else is read. */
  async function readChainFacts(network: Network, contract: Address): Promise<ChainFacts> {
    const standard = await deps.contracts.standard(network, contract);
    const reads = deps.readsFor(network);
    const [name, symbol, supply, document] = await Promise.all([
      deps.contracts.name(network, contract),
      reads.read<string>(contract, 'symbol'),
      reads.read<bigint>(contract, 'totalSupply'),
      deps.contractMetadata.get(network, contract),
    ]);
    return {
      standard,
      name,
      symbol: symbol.ok && symbol.value.trim() !== '' ? symbol.value : null,
      supply: supply.ok ? Number(supply.value) : null,
      document,
    };
  }

  async function listedChainFacts(network: Network, contract: Address): Promise<ChainFacts | undefined> {
    const key = `${networkName(network)}/${contract.toLowerCase()}`;
    const cached = listCache.get(key);
    if (cached) return cached;
    const facts = await readChainFacts(network, contract).catch(() => undefined);
    if (facts) listCache.set(key, facts, listFactsTtlMs);
    return facts;
  }

  async function floorOf(network: Network, contract: string): Promise<FloorPrice | null> {
    if (!deps.floorPrices) return null;
    return deps.floorPrices.floorPrice(network, contract).catch((error: unknown) => {
      deps.logger.warn({ err: error, contract }, 'floor price source failed');
      return null;
    });
  }

  function describe(
    network: Network,
    contract: string,
    facts: ChainFacts,
    indexedTokens: number,
    floor: FloorPrice | null,
    verdict: SpamFlags | undefined,
  ): CollectionFacts {
    const { document } = facts;
    return {
      contract,
      chain: network.config.chain,
      network: network.config.network,
      name: facts.name ?? document.name,
      symbol: facts.symbol,
      standard: facts.standard,
      total_supply: facts.supply ?? indexedTokens,
      floor_price_eth: floor?.eth ?? null,
      floor_price_usd: floor?.usd ?? null,
      description: document.description,
      image_url: document.image,
      image_gateway_url: imageGatewayUrl(document.image, deps.gateways),
      banner_url: document.banner,
      contract_uri: document.contractUri,
      metadata_error: document.error,
      is_spam: verdict?.is_spam ?? false,
      spam_reasons: verdict?.spam_reasons ?? [],
      spam_confidence: verdict?.confidence ?? null,
    };
  }

  return {
    /** One collection, read fresh, with its owner count; a 404 when the contract is no NFT contract. */
    async one(network: Network, contract: Address): Promise<NftCollection> {
      const facts = await readChainFacts(network, contract);
      const [counts, floor, verdict] = await Promise.all([
        deps.store.collectionCounts(networkName(network), contract),
        floorOf(network, contract),
        deps.spam.of(network, contract),
      ]);
      return { ...describe(network, contract, facts, counts.tokens, floor, verdict), num_owners: counts.owners };
    },

    /** The collections of a list; a contract that is not an NFT contract, or whose reads fail, is left out of the map. */
    async many(network: Network, contracts: readonly Address[]): Promise<Map<string, CollectionFacts>> {
      const [facts, spam, floors] = await Promise.all([
        mapBounded(contracts, describeConcurrency, (contract) => listedChainFacts(network, contract)),
        deps.spam.flags(network, contracts),
        mapBounded(contracts, describeConcurrency, (contract) => floorOf(network, contract)),
      ]);
      const uncounted = contracts.filter((_, i) => facts[i] !== undefined && facts[i]!.supply === null);
      const counted = uncounted.length
        ? await deps.store.tokenCounts(networkName(network), uncounted)
        : new Map<string, number>();
      const described = new Map<string, CollectionFacts>();
      contracts.forEach((contract, i) => {
        const found = facts[i];
        if (found)
          described.set(contract, describe(network, contract, found, counted.get(contract) ?? 0, floors[i]!, spam.get(contract)));
      });
      return described;
    },

    /** The contract announced a new contractURI document (ERC-7572): the next list reads it again. */
    forget(network: string, contract: string): void {
      listCache.delete(`${network}/${contract.toLowerCase()}`);
    },
  };
}
