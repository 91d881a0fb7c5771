import type { NftStandard } from '../db/tables/chain-index.ts';
import type { ConfidenceLevel, SpamReason } from '../spam/reasons.ts';
import type { Trait } from './metadata/parse-metadata.ts';

/** The NFT API answers (docs/nfts.md); their OpenAPI schemas are in schemas.ts. */
export interface NftMetadata {
  contract: string;
  chain: string;
  network: string;
  token_id: string;
  standard: NftStandard;
  owner: string | null;
  name: string | null;
  description: string | null;
  image_url: string | null;
  image_gateway_url: string | null;
  traits: Trait[];
  token_uri: string | null;
  metadata_error: string | null;
  fetched_at: string;
}

export interface NftCollection {
  contract: string;
  chain: string;
  network: string;
  name: string | null;
  symbol: string | null;
  standard: NftStandard;
  total_supply: number;
  num_owners: number;
  floor_price_eth: string | null;
  floor_price_usd: string | null;
  description: string | null;
  image_url: string | null;
  image_gateway_url: string | null;
  banner_url: string | null;
  contract_uri: string | null;
  metadata_error: string | null;
  is_spam: boolean;
  spam_reasons: SpamReason[];
  /** Alchemy's confidence levels; null when not spam. */
  spam_confidence: ConfidenceLevel | null;
}

/** What a list says of each collection: the collection's own answer without its owner count. */
export type CollectionFacts = Omit<NftCollection, 'num_owners'>;

export interface OwnedNft {
  contract: string;
  token_id: string;
  name: string | null;
  collection_name: string | null;
  image_url: string | null;
  image_gateway_url: string | null;
  standard: NftStandard;
  balance: string;
  /** The collection's spam verdict. */
  is_spam: boolean;
  /** Minted to this owner in a transaction another address sent. */
  is_airdrop: boolean;
}

export interface OwnedNfts {
  address: string;
  chain: string;
  network: string;
  nfts: OwnedNft[];
  page: number;
  limit: number;
  total: number;
  block_number: number | null;
}
