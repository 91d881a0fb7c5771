import type { NftStandard } from '../../db/tables/chain-index.ts';
import type { IndexedHead, IndexedToken } from '../index-reads.ts';
import type { Trait } from '../metadata/parse-metadata.ts';
import { type Gateways, imageGatewayUrl } from '../metadata/resolve-uri.ts';
import type { CollectionFacts, NftMetadata } from '../responses.ts';
import { checksummed } from './checksum.ts';

/**
 * Alchemy's NFT API v3 answers, built from the /v1/nfts records. Fields Blockyard has no source for
 * (OpenSea slugs, spam classification, deployers, cached thumbnails) are null, as Alchemy gives them
 * when it has none; `openSeaMetadata` carries the collection's contractURI document (OpenSea's
 * contract-level metadata standard).
 */

export interface V3Contract {
  address: string;
  name: string | null;
  symbol: string | null;
  totalSupply: string | null;
  tokenType: NftStandard;
  contractDeployer: null;
  deployedBlockNumber: null;
  openSeaMetadata: {
    floorPrice: number | null;
    collectionName: string | null;
    collectionSlug: null;
    safelistRequestStatus: null;
    imageUrl: string | null;
    description: string | null;
    externalUrl: null;
    twitterUsername: null;
    discordUrl: null;
    bannerImageUrl: string | null;
    lastIngestedAt: null;
  };
}

export interface V3NftContract extends V3Contract {
  isSpam: boolean;
  spamClassifications: string[];
}

export interface V3Nft {
  contract: V3NftContract;
  tokenId: string;
  tokenType: NftStandard;
  name: string | null;
  description: string | null;
  tokenUri: string | null;
  image: {
    cachedUrl: string | null;
    thumbnailUrl: null;
    pngUrl: null;
    contentType: null;
    size: null;
    originalUrl: string | null;
  };
  raw: { tokenUri: string | null; metadata: Record<string, unknown>; error: string | null };
  collection: null;
  mint: { mintAddress: null; blockNumber: null; timestamp: null; transactionHash: null };
  owners: null;
  timeLastUpdated: string | null;
}

/** A token's metadata in one shape, whether it came from `metadata()` or a list's join. */
export interface TokenFacts {
  contract: string;
  tokenId: string;
  standard: NftStandard;
  tokenUri: string | null;
  name: string | null;
  description: string | null;
  imageUrl: string | null;
  traits: readonly Trait[];
  error: string | null;
  fetchedAt: string | null;
}

/** Not yet in the metadata cache: a list reads the cache only and queues the fetch. */
const notFetched = 'metadata not fetched yet (queued); ask again shortly or call getNFTMetadata';

export function factsOfMetadata(record: NftMetadata): TokenFacts {
  return {
    contract: record.contract,
    tokenId: record.token_id,
    standard: record.standard,
    tokenUri: record.token_uri,
    name: record.name,
    description: record.description,
    imageUrl: record.image_url,
    traits: record.traits,
    error: record.metadata_error,
    fetchedAt: record.fetched_at,
  };
}

export function factsOfIndexed(token: IndexedToken): TokenFacts {
  const m = token.metadata;
  return {
    contract: token.contract,
    tokenId: token.tokenId,
    standard: token.standard,
    tokenUri: m?.tokenUri ?? null,
    name: m?.name ?? null,
    description: m?.description ?? null,
    imageUrl: m?.imageUrl ?? null,
    traits: m?.traits ?? [],
    error: m ? m.metadataError : notFetched,
    fetchedAt: m ? m.fetchedAt.toISOString() : null,
  };
}

export function v3Contract(collection: CollectionFacts): V3Contract {
  const floor = collection.floor_price_eth === null ? null : Number(collection.floor_price_eth);
  return {
    address: checksummed(collection.contract),
    name: collection.name,
    symbol: collection.symbol,
    totalSupply: String(collection.total_supply),
    tokenType: collection.standard,
    contractDeployer: null,
    deployedBlockNumber: null,
    openSeaMetadata: {
      floorPrice: floor,
      collectionName: collection.name,
      collectionSlug: null,
      safelistRequestStatus: null,
      imageUrl: collection.image_gateway_url ?? collection.image_url,
      description: collection.description,
      externalUrl: null,
      twitterUsername: null,
      discordUrl: null,
      bannerImageUrl: collection.banner_url,
      lastIngestedAt: null,
    },
  };
}

/** The contract-level metadata of a contract nothing is known of. */
export const noOpenSeaMetadata: V3Contract['openSeaMetadata'] = {
  floorPrice: null,
  collectionName: null,
  collectionSlug: null,
  safelistRequestStatus: null,
  imageUrl: null,
  description: null,
  externalUrl: null,
  twitterUsername: null,
  discordUrl: null,
  bannerImageUrl: null,
  lastIngestedAt: null,
};

const undescribed = (address: string, standard: NftStandard): V3Contract => ({
  address: checksummed(address),
  name: null,
  symbol: null,
  totalSupply: null,
  tokenType: standard,
  contractDeployer: null,
  deployedBlockNumber: null,
  openSeaMetadata: noOpenSeaMetadata,
});

/** The contract part of an NFT; `collection` is null when the contract could not be described (an upstream failure). */
export function v3NftContract(address: string, standard: NftStandard, collection: CollectionFacts | null): V3NftContract {
  const described = collection ? v3Contract(collection) : undescribed(address, standard);
  return { ...described, isSpam: collection?.is_spam ?? false, spamClassifications: collection?.spam_reasons ?? [] };
}

/** The token's metadata document as far as Blockyard keeps it: name, description, image and attributes. */
function rawMetadata(facts: TokenFacts): Record<string, unknown> {
  const document: Record<string, unknown> = {};
  if (facts.name !== null) document.name = facts.name;
  if (facts.description !== null) document.description = facts.description;
  if (facts.imageUrl !== null) document.image = facts.imageUrl;
  if (facts.traits.length > 0) document.attributes = facts.traits.map((t) => ({ trait_type: t.trait_type, value: t.value }));
  return document;
}

export function v3Nft(facts: TokenFacts, contract: V3NftContract, gateways: Gateways): V3Nft {
  return {
    contract,
    tokenId: facts.tokenId,
    tokenType: facts.standard,
    name: facts.name,
    description: facts.description,
    tokenUri: imageGatewayUrl(facts.tokenUri, gateways) ?? facts.tokenUri,
    image: v3Image(facts.imageUrl, gateways),
    raw: { tokenUri: facts.tokenUri, metadata: rawMetadata(facts), error: facts.error },
    collection: null,
    mint: { mintAddress: null, blockNumber: null, timestamp: null, transactionHash: null },
    owners: null,
    timeLastUpdated: facts.fetchedAt,
  };
}

/** An image as Alchemy describes one: Blockyard keeps no image cache, so only the URLs are known. */
export function v3Image(imageUrl: string | null, gateways: Gateways): V3Nft['image'] {
  return {
    cachedUrl: imageGatewayUrl(imageUrl, gateways),
    thumbnailUrl: null,
    pngUrl: null,
    contentType: null,
    size: null,
    originalUrl: imageUrl,
  };
}

export function v3ValidAt(head: IndexedHead | null) {
  return {
    blockNumber: head?.number ?? null,
    blockHash: head?.hash ?? null,
    blockTimestamp: head ? head.timestamp.toISOString() : null,
  };
}
