import type { Address } from 'viem';
import type { Network } from '../../chains/registry.ts';
import { checksumAddressesInJson } from '../../core/address-checksum.ts';
import { mapBounded } from '../../core/map-bounded.ts';
import type { ConfidenceLevel } from '../../spam/reasons.ts';
import { networkName } from '../contract-info.ts';
import { type HeldFilter, keepsNothing } from '../held-filter.ts';
import type { AcquiredToken, IndexedToken, NftIndexReads, OwnedContract } from '../index-reads.ts';
import type { Gateways } from '../metadata/resolve-uri.ts';
import type { NftService } from '../service.ts';
import { checksummed } from './checksum.ts';
import { acquisitionBlockOf, acquisitionKeyOf, decodeV3PageKey, encodeV3PageKey, type FilterMode } from './params.ts';
import {
  factsOfIndexed,
  factsOfMetadata,
  type V3Nft,
  type V3NftContract,
  v3Contract,
  v3Image,
  v3Nft,
  v3NftContract,
  v3ValidAt,
} from './shapes.ts';
import { unsupportedContract, unsupportedNft } from './unsupported.ts';

export interface V3Deps {
  nfts: NftService;
  reads: NftIndexReads;
  gateways: Gateways;
}

const baseNft = (token: IndexedToken) => ({ contractAddress: checksummed(token.contract), tokenId: token.tokenId });

/** The next page's first item, if the read found one more row than the page holds. */
function split<T>(rows: T[], limit: number): { page: T[]; more: boolean } {
  return { page: rows.slice(0, limit), more: rows.length > limit };
}

interface NftsForOwnerOptions {
  contracts?: Address[];
  /** SPAM in excludeFilters (at spamConfidenceLevel, if given) or includeFilters. */
  spam?: { mode: FilterMode; level?: ConfidenceLevel };
  /** AIRDROPS in excludeFilters or includeFilters. */
  airdrops?: FilterMode;
  /** transferTime: the newest acquired first; else by contract and token id. */
  orderBy?: 'transferTime';
  pageKey?: string;
  pageSize: number;
  withMetadata: boolean;
}

interface ContractsForOwnerOptions {
  spam?: NftsForOwnerOptions['spam'];
  airdrops?: FilterMode;
  /** transferTime: the contract whose token came to the owner last first; else by address. */
  orderBy?: 'transferTime';
  pageKey?: string;
  pageSize: number;
}

interface NftsForContractOptions {
  from: bigint;
  limit: number;
  withMetadata: boolean;
}

interface OwnersForNftOptions {
  pageKey?: string;
  pageSize: number;
}

interface OwnersForContractOptions {
  pageKey?: string;
  pageSize: number;
  withTokenBalances: boolean;
  includeCount: boolean;
}

/**
 * Alchemy's NFT API v3 methods over the NFT service of /v1/nfts and the index: the same records,
 * in Alchemy's shapes. Lists read the metadata cache and queue what is missing, as /v1/nfts/owned does.
 */
export function createAlchemyV3Nfts(deps: V3Deps) {
  return {
    /** `refresh`: fetch the token's metadata again (Alchemy's refreshCache), else read the cache. */
    nftMetadata: (network: Network, contract: Address, tokenId: bigint, refresh = false) =>
      nftMetadata(deps, network, contract, tokenId, refresh),
    contractMetadata: (network: Network, contract: Address) => contractMetadata(deps, network, contract),
    nftMetadataBatch: (network: Network, tokens: readonly BatchToken[], refresh = false) =>
      nftMetadataBatch(deps, network, tokens, refresh),
    contractMetadataBatch: (network: Network, contracts: readonly Address[]) => contractMetadataBatch(deps, network, contracts),
    isSpamContract: (network: Network, contract: Address) => isSpamContract(deps, network, contract),
    isHolderOfContract: async (network: Network, wallet: Address, contract: Address) => ({
      isHolderOfContract: await deps.reads.holdsAny(networkName(network), wallet, contract),
    }),
    spamContracts: async (network: Network) => ({
      contractAddresses: (await deps.nfts.spam.spamContracts(network)).map(checksummed),
    }),
    nftsForOwner: (network: Network, owner: Address, options: NftsForOwnerOptions) => nftsForOwner(deps, network, owner, options),
    contractsForOwner: (network: Network, owner: Address, options: ContractsForOwnerOptions) =>
      contractsForOwner(deps, network, owner, options),
    nftsForContract: (network: Network, contract: Address, options: NftsForContractOptions) =>
      nftsForContract(deps, network, contract, options),
    ownersForNft: (network: Network, contract: Address, tokenId: bigint, options: OwnersForNftOptions) =>
      ownersForNft(deps, network, contract, tokenId, options),
    ownersForContract: (network: Network, contract: Address, options: OwnersForContractOptions) =>
      ownersForContract(deps, network, contract, options),
  };
}

/** Each distinct contract of a page described once; a contract that cannot be read is given with what the index knows. */
async function contractsOf(
  { nfts }: V3Deps,
  network: Network,
  tokens: readonly Pick<IndexedToken, 'contract' | 'standard'>[],
): Promise<Map<string, V3NftContract>> {
  const distinct = new Map(tokens.map((token) => [token.contract, token.standard]));
  const described = await nfts.collections(network, [...distinct.keys()] as Address[]);
  return new Map(
    [...distinct].map(([address, standard]) => [address, v3NftContract(address, standard, described.get(address) ?? null)]),
  );
}

async function withMetadata(deps: V3Deps, network: Network, tokens: readonly IndexedToken[]): Promise<V3Nft[]> {
  const contracts = await contractsOf(deps, network, tokens);
  for (const token of tokens) {
    if (!token.metadata)
      deps.nfts.fetcher.enqueue({ network, contract: token.contract, tokenId: token.tokenId, standard: token.standard });
  }
  return tokens.map((token) => v3Nft(factsOfIndexed(token), contracts.get(token.contract)!, deps.gateways));
}

async function nftMetadata({ nfts, gateways }: V3Deps, network: Network, contract: Address, tokenId: bigint, refresh: boolean) {
  const record = await (refresh ? nfts.refresh : nfts.metadata)(network, contract, tokenId);
  const collection = await nfts.collection(network, contract).catch(() => null);
  return v3Nft(factsOfMetadata(record), v3NftContract(record.contract, record.standard, collection), gateways);
}

async function contractMetadata({ nfts }: V3Deps, network: Network, contract: Address) {
  const collection = await nfts.collection(network, contract);
  return { ...v3Contract(collection), isSpam: collection.is_spam, spamClassifications: collection.spam_reasons };
}

/** Items of a batch read at once at most: each may read the chain and fetch a metadata document. */
const batchConcurrency = 8;

export interface BatchToken {
  contract: Address;
  tokenId: bigint;
}

/**
 * getNFTMetadataBatch: each token as getNFTMetadata answers it, in the order asked. A token of an
 * address that holds no NFT contract is answered in its place (Alchemy's NOT_A_CONTRACT or
 * NO_SUPPORTED_NFT_STANDARD, the reason in `raw.error`), not as a failure of the whole batch.
 */
async function nftMetadataBatch(deps: V3Deps, network: Network, tokens: readonly BatchToken[], refresh: boolean) {
  const nfts = await mapBounded(tokens, batchConcurrency, ({ contract, tokenId }) =>
    nftMetadata(deps, network, contract, tokenId, refresh).catch((error: unknown) => unsupportedNft(contract, tokenId, error)),
  );
  return { nfts };
}

/** getContractMetadataBatch: each contract as getContractMetadata answers it, in the order asked. */
async function contractMetadataBatch(deps: V3Deps, network: Network, contracts: readonly Address[]) {
  const answers = await mapBounded(contracts, batchConcurrency, (contract) =>
    contractMetadata(deps, network, contract).catch((error: unknown) => unsupportedContract(contract, error)),
  );
  return { contracts: answers };
}

/** Alchemy's isSpamContract: the collection's verdict (a contract that is no NFT contract is a 404). */
async function isSpamContract({ nfts }: V3Deps, network: Network, contract: Address) {
  return { isSpamContract: (await nfts.collection(network, contract)).is_spam };
}

async function nftsForOwner(deps: V3Deps, network: Network, owner: Address, options: NftsForOwnerOptions) {
  const { reads } = deps;
  const name = networkName(network);
  const byAcquisition = options.orderBy === 'transferTime';
  const fingerprint = {
    method: 'getNFTsForOwner',
    network: name,
    owner,
    contracts: options.contracts ?? [],
    ...filtersOf(options),
    ...(byAcquisition ? { orderBy: 'transferTime' } : {}),
  };
  const after = options.pageKey === undefined ? undefined : decodeV3PageKey(options.pageKey, fingerprint, byAcquisition ? 3 : 2);
  const filter = await heldFilter(deps, network, owner, options);
  if (keepsNothing(filter)) return { ownedNfts: [], totalCount: 0, pageKey: null, validAt: v3ValidAt(await reads.head(name)) };
  const limit = options.pageSize;
  const [rows, totalCount, head] = await Promise.all([
    byAcquisition
      ? reads.ownedByAcquisition(name, owner, { after: after && acquisitionKeyOf(after), limit, filter })
      : reads.ownedBy(name, owner, { after: after && { contract: after[0]!, tokenId: after[1]! }, limit, filter }),
    reads.countOwnedBy(name, owner, filter),
    reads.head(name),
  ]);
  const { page, more } = split<IndexedToken & Partial<AcquiredToken>>(rows, limit);
  const last = page.at(-1);
  const listed = options.withMetadata
    ? (await withMetadata(deps, network, page)).map((nft, i) => ({ ...nft, balance: page[i]!.amount }))
    : page.map((token) => ({ ...baseNft(token), balance: token.amount }));
  const ownedNfts = byAcquisition ? listed.map((nft, i) => ({ ...nft, acquiredAt: acquiredAtOf(page[i]!) })) : listed;
  const lastKey =
    last && (byAcquisition ? [String(last.acquiredBlock ?? 'x'), last.contract, last.tokenId] : [last.contract, last.tokenId]);
  return {
    ownedNfts,
    totalCount,
    pageKey: more && lastKey ? encodeV3PageKey(lastKey, fingerprint) : null,
    validAt: v3ValidAt(head),
  };
}

/** Alchemy's acquiredAt: the block of the newest transfer that brought the token to its owner. */
function acquiredAtOf(token: Partial<AcquiredToken>) {
  return {
    blockTimestamp: token.acquiredAt ? token.acquiredAt.toISOString() : null,
    blockNumber: token.acquiredBlock ?? null,
  };
}

/**
 * getContractsForOwner: the collections an owner holds tokens of, by address, each described as
 * getContractMetadata describes it, with the owner's balance and the first token it holds as the
 * collection's display NFT.
 */
async function contractsForOwner(deps: V3Deps, network: Network, owner: Address, options: ContractsForOwnerOptions) {
  const { reads, gateways } = deps;
  const name = networkName(network);
  const byAcquisition = options.orderBy === 'transferTime';
  const fingerprint = {
    method: 'getContractsForOwner',
    network: name,
    owner,
    ...filtersOf(options),
    ...(byAcquisition ? { orderBy: 'transferTime' } : {}),
  };
  const key = options.pageKey === undefined ? undefined : decodeV3PageKey(options.pageKey, fingerprint, byAcquisition ? 2 : 1);
  const after = key && (byAcquisition ? { block: acquisitionBlockOf(key[0]), contract: key[1]! } : { contract: key[0]! });
  const filter = await heldFilter(deps, network, owner, options);
  if (keepsNothing(filter)) return { contracts: [], totalCount: 0, pageKey: null };
  const [rows, totalCount] = await Promise.all([
    reads.contractsOwnedBy(name, owner, { after, limit: options.pageSize, filter, byAcquisition }),
    reads.countContractsOwnedBy(name, owner, filter),
  ]);
  const { page, more } = split(rows, options.pageSize);
  const described = await contractsOf(deps, network, page);
  return {
    contracts: page.map((row) => ({
      ...described.get(row.contract)!,
      totalBalance: row.totalBalance,
      numDistinctTokensOwned: String(row.distinctTokens),
      displayNft: { tokenId: row.displayToken.tokenId, name: row.displayToken.name },
      image: v3Image(row.displayToken.imageUrl, gateways),
    })),
    totalCount,
    pageKey: more ? encodeV3PageKey(contractsKey(page.at(-1)!, byAcquisition), fingerprint) : null,
  };
}

/** A getContractsForOwner page key's sort key: the contract, after its newest acquisition when ordered by it. */
const contractsKey = (last: OwnedContract, byAcquisition: boolean) =>
  byAcquisition ? [String(last.acquiredBlock ?? 'x'), last.contract] : [last.contract];

/** The filters a page key is bound to (a key from another filter is refused). */
const filtersOf = (options: Pick<NftsForOwnerOptions, 'spam' | 'airdrops'>) => ({
  ...(options.spam ? { spam: options.spam } : {}),
  ...(options.airdrops ? { airdrops: options.airdrops } : {}),
});

/**
 * The owner's tokens a list keeps: excludeFilters leaves out the owner's spam collections and
 * airdropped tokens; includeFilters keeps only tokens matching one of the filters it names.
 */
async function heldFilter(
  deps: V3Deps,
  network: Network,
  owner: Address,
  options: Pick<NftsForOwnerOptions, 'spam' | 'airdrops'> & { contracts?: Address[] },
): Promise<HeldFilter> {
  const { spam, airdrops } = options;
  const flagged = spam ? await deps.nfts.spam.excludedFor(network, owner, { level: spam.level }) : undefined;
  const only =
    spam?.mode === 'include' || airdrops === 'include'
      ? { ...(spam?.mode === 'include' ? { contracts: flagged } : {}), airdrops: airdrops === 'include' }
      : undefined;
  return {
    ...(options.contracts ? { contracts: options.contracts } : {}),
    ...(spam?.mode === 'exclude' ? { excludeContracts: flagged } : {}),
    excludeAirdrops: airdrops === 'exclude',
    ...(only ? { only } : {}),
  };
}

async function nftsForContract(deps: V3Deps, network: Network, contract: Address, options: NftsForContractOptions) {
  // A contract that is not an NFT contract is a 404, as for getContractMetadata.
  await deps.nfts.collection(network, contract);
  const rows = await deps.reads.tokensOf(networkName(network), contract, { from: options.from, limit: options.limit });
  const { page, more } = split(rows, options.limit);
  const last = page.at(-1);
  return {
    nfts: options.withMetadata ? await withMetadata(deps, network, page) : page.map(baseNft),
    // Alchemy's form: the next startToken, in hex.
    pageKey: more && last ? `0x${(BigInt(last.tokenId) + 1n).toString(16)}` : null,
  };
}

async function ownersForNft(
  { reads }: V3Deps,
  network: Network,
  contract: Address,
  tokenId: bigint,
  options: OwnersForNftOptions,
) {
  const name = networkName(network);
  const id = tokenId.toString();
  const fingerprint = { method: 'getOwnersForNFT', network: name, contract, tokenId: id };
  const after = options.pageKey === undefined ? undefined : decodeV3PageKey(options.pageKey, fingerprint, 1)[0];
  const rows = await reads.ownersOf(name, contract, id, { after, limit: options.pageSize });
  const { page, more } = split(rows, options.pageSize);
  return { owners: page.map(checksummed), pageKey: more ? encodeV3PageKey([page.at(-1)!], fingerprint) : null };
}

/** An answer already encoded as JSON, sent as it is. */
export interface EncodedAnswer {
  readonly json: string;
}

/**
 * getOwnersForContract, encoded by Postgres: a page may hold thousands of holders (holders-json.ts).
 * The contract's standard is all it needs of the chain (a 404 for a contract that is no NFT contract).
 */
async function ownersForContract(
  { nfts, reads }: V3Deps,
  network: Network,
  contract: Address,
  options: OwnersForContractOptions,
): Promise<EncodedAnswer> {
  const name = networkName(network);
  const fingerprint = { method: 'getOwnersForContract', network: name, contract };
  const after = options.pageKey === undefined ? undefined : decodeV3PageKey(options.pageKey, fingerprint, 1)[0];
  const countOwners = options.includeCount && !options.withTokenBalances;
  const [, page] = await Promise.all([
    nfts.standard(network, contract),
    reads.holdersJson(name, contract, { after, limit: options.pageSize, withBalances: options.withTokenBalances, countOwners }),
  ]);
  const pageKey = page.more && page.last !== undefined ? encodeV3PageKey([page.last], fingerprint) : null;
  const count = page.owners === undefined ? '' : `,"totalCount":${page.owners}`;
  return { json: `{"owners":${checksumAddressesInJson(page.json)},"pageKey":${JSON.stringify(pageKey)}${count}}` };
}

export type AlchemyV3Nfts = ReturnType<typeof createAlchemyV3Nfts>;
