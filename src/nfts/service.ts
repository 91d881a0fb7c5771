import type { Logger } from 'pino';
import type { Address, PublicClient } from 'viem';
import { publicClientFor } from '../chains/public-client.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import type { Config } from '../config/schema.ts';
import type { Database } from '../db/connect.ts';
import type { NftStandard } from '../db/tables/chain-index.ts';
import type { ChainEventListener } from '../events/chain-event.ts';
import type { SpamService } from '../spam/service.ts';
import { type ChainReads, createChainReads } from './chain-reads.ts';
import { createContractMetadata } from './collection.ts';
import { type CollectionSpam, createCollectionSpam, type SpamFilter } from './collection-spam.ts';
import { createCollections } from './collections.ts';
import { type ContractInfo, createContractInfo, networkName } from './contract-info.ts';
import type { FloorPriceSource } from './floor-price.ts';
import { createDocumentLoader, type DocumentLoader } from './metadata/load-document.ts';
import { type Gateways, imageGatewayUrl } from './metadata/resolve-uri.ts';
import { createNftMetadataFetcher, type MetadataJob, type NftMetadataFetcher } from './metadata-fetcher.ts';
import { contractUriUpdateOf } from './metadata-update-events.ts';
import type { CollectionFacts, NftCollection, NftMetadata, OwnedNfts } from './responses.ts';
import { createNftStore, type NftMetadataRecord, type NftStore } from './store.ts';
import { createTokenMetadata, type TokenRef } from './token-metadata.ts';

export interface NftService {
  metadata(network: Network, contract: Address, tokenId: bigint): Promise<NftMetadata>;
  refresh(network: Network, contract: Address, tokenId: bigint): Promise<NftMetadata>;
  collection(network: Network, contract: Address): Promise<NftCollection>;
  /** The collections of a list, each described as `collection` does less its owner count; others left out. */
  collections(network: Network, contracts: readonly Address[]): Promise<Map<string, CollectionFacts>>;
  /** The contract's standard by ERC-165 (read once an hour at most); 404 when it is no NFT contract. */
  standard(network: Network, contract: Address): Promise<NftStandard>;
  owned(network: Network, owner: Address, page: OwnedQuery): Promise<OwnedNfts>;
  /** Spam verdicts of collections, and the filter of owned lists. */
  readonly spam: CollectionSpam;
  /** The background fetcher: give `fetcher.listener` to the chain event stream, or call `fetcher.onMinted`. */
  readonly fetcher: NftMetadataFetcher;
  /**
   * For every process serving the API, on every event of the stream: drops what it keeps in memory of a
   * collection whose contract-level metadata changed (ERC-7572 `ContractURIUpdated()`).
   */
  readonly cacheListener: ChainEventListener;
  close(): Promise<void>;
}

export interface OwnedQuery {
  page: number;
  limit: number;
  /** Leave out collections judged spam (docs/spam.md). */
  excludeSpam?: SpamFilter;
  /** Leave out NFTs minted to the owner in a transaction another address sent (docs/spam.md#airdrops). */
  excludeAirdrops?: boolean;
}

export interface NftServiceDeps {
  db: Database;
  config: Pick<Config, 'mode' | 'nfts'>;
  chains: Pick<ChainRegistry, 'get'>;
  logger: Logger;
  floorPrices?: FloorPriceSource;
  /** Default: a safe fetcher built from `config.nfts`. */
  loader?: DocumentLoader;
  /** Default: `publicClientFor` (the network's upstream pool). */
  clientFor?: (network: Network) => PublicClient;
  /** Spam flags of collections; absent: every collection is not spam. */
  spam?: SpamService;
}

/** The parts the NFT answers are read from, wired once by `createNftService`. */
interface NftParts {
  store: NftStore;
  contracts: ContractInfo;
  fetcher: NftMetadataFetcher;
  gateways: Gateways;
  spam: CollectionSpam;
}

type RecordLoader = (token: TokenRef) => Promise<NftMetadataRecord>;

/** NFT metadata, collections and ownership (docs/nfts.md). */
export function createNftService(deps: NftServiceDeps): NftService {
  const { nfts, mode } = deps.config;
  const store = createNftStore(deps.db);
  const loader = deps.loader ?? createDocumentLoader({ nfts, mode });
  const readsFor = chainReadsPerNetwork(deps.clientFor ?? publicClientFor, nfts.metadataTimeoutMs);
  const contracts = createContractInfo(readsFor);
  const contractMetadata = createContractMetadata({ loader, readsFor });
  const spam = createCollectionSpam({ spam: deps.spam, contracts, readsFor, store });
  const collections = createCollections({
    store,
    contracts,
    contractMetadata,
    readsFor,
    gateways: nfts,
    floorPrices: deps.floorPrices,
    logger: deps.logger,
    spam,
  });

  async function runJob(job: MetadataJob): Promise<unknown> {
    const standard = job.standard ?? (await contracts.standard(job.network, job.contract as Address));
    const token = {
      network: job.network,
      standard,
      key: { network: networkName(job.network), contract: job.contract, tokenId: job.tokenId },
    };
    return job.refetch ? tokens.refetch(token) : tokens.fetchAndStore(token);
  }
  const fetcher = createNftMetadataFetcher({
    chains: deps.chains,
    run: runJob,
    storedTokenIds: (network, contract, from, to, limit) => store.storedTokenIds(networkName(network), contract, from, to, limit),
    logger: deps.logger,
  });
  const tokens = createTokenMetadata({
    store,
    loader,
    readsFor,
    // A token URI read and a document fetch, each bounded by the timeout, and the database.
    waitMs: 2 * nfts.metadataTimeoutMs + 1000,
    retryInBackground: (token) =>
      fetcher.enqueue({
        network: token.network,
        contract: token.key.contract,
        tokenId: token.key.tokenId,
        standard: token.standard,
      }),
  });
  const parts: NftParts = { store, contracts, fetcher, gateways: nfts, spam };

  return {
    fetcher,
    spam,
    cacheListener(events) {
      for (const event of events) {
        if (event.type !== 'log' || event.removed) continue;
        const contract = contractUriUpdateOf(event.data);
        if (contract === undefined) continue;
        contractMetadata.forget(event.network, contract);
        collections.forget(event.network, contract);
      }
    },
    metadata: async (network, contract, tokenId) =>
      metadataResponse(parts, await tokenRef(contracts, network, contract, tokenId), tokens.get),
    refresh: async (network, contract, tokenId) =>
      metadataResponse(parts, await tokenRef(contracts, network, contract, tokenId), tokens.refresh),
    collection: (network, contract) => collections.one(network, contract),
    collections: (network, list) => collections.many(network, list),
    standard: (network, contract) => contracts.standard(network, contract),
    owned: (network, owner, page) => ownedResponse(parts, network, owner, page),
    async close() {
      await fetcher.close();
      await tokens.settled();
    },
  };
}

/** One `ChainReads` a network, made on first use. */
function chainReadsPerNetwork(clientFor: (network: Network) => PublicClient, timeoutMs: number) {
  const reads = new WeakMap<Network, ChainReads>();
  return (network: Network): ChainReads => {
    let found = reads.get(network);
    if (!found) {
      found = createChainReads(clientFor(network), timeoutMs);
      reads.set(network, found);
    }
    return found;
  };
}

async function tokenRef(contracts: ContractInfo, network: Network, contract: Address, tokenId: bigint): Promise<TokenRef> {
  const standard = await contracts.standard(network, contract);
  return { network, standard, key: { network: networkName(network), contract, tokenId: tokenId.toString() } };
}

async function metadataResponse(parts: NftParts, token: TokenRef, load: RecordLoader): Promise<NftMetadata> {
  const [record, holders] = await Promise.all([load(token), parts.store.holders(token.key)]);
  return {
    contract: token.key.contract,
    chain: token.network.config.chain,
    network: token.network.config.network,
    token_id: token.key.tokenId,
    standard: token.standard,
    owner: holders.length === 1 ? (holders[0] as string) : null,
    name: record.name,
    description: record.description,
    image_url: record.imageUrl,
    image_gateway_url: imageGatewayUrl(record.imageUrl, parts.gateways),
    traits: [...record.traits],
    token_uri: record.tokenUri,
    metadata_error: record.metadataError,
    fetched_at: record.fetchedAt.toISOString(),
  };
}

async function ownedResponse(
  parts: NftParts,
  network: Network,
  owner: Address,
  { page, limit, excludeSpam, excludeAirdrops }: OwnedQuery,
): Promise<OwnedNfts> {
  const { store, contracts, fetcher } = parts;
  const name = networkName(network);
  const exclude = excludeSpam ? await parts.spam.excludedFor(network, owner, excludeSpam) : [];
  const [{ items, total }, head] = await Promise.all([
    store.ownedBy(name, owner, { offset: (page - 1) * limit, limit, filter: { excludeContracts: exclude, excludeAirdrops } }),
    store.indexedHead(name),
  ]);
  const distinct = [...new Set(items.map((item) => item.contract))];
  const names = new Map(
    await Promise.all(
      // A collection name is a nicety: an upstream failure leaves it null rather than failing the list.
      distinct.map(async (contract) => [contract, await contracts.name(network, contract as Address).catch(() => null)] as const),
    ),
  );
  const spam = await parts.spam.flags(network, distinct);
  for (const item of items) {
    if (!item.hasMetadata) fetcher.enqueue({ network, contract: item.contract, tokenId: item.tokenId, standard: item.standard });
  }
  return {
    address: owner,
    chain: network.config.chain,
    network: network.config.network,
    nfts: items.map((item) => ({
      contract: item.contract,
      token_id: item.tokenId,
      name: item.name,
      collection_name: names.get(item.contract) ?? null,
      image_url: item.imageUrl,
      image_gateway_url: imageGatewayUrl(item.imageUrl, parts.gateways),
      standard: item.standard,
      balance: item.amount,
      is_spam: spam.get(item.contract)?.is_spam ?? false,
      is_airdrop: item.isAirdrop,
    })),
    page,
    limit,
    total,
    block_number: head,
  };
}
