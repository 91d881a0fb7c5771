import { type TSchema, Type } from 'typebox';
import { paginationQuery } from '../http/pagination.ts';

// A type list, not anyOf, as in the other routes' schemas.
const NullableString = (description?: string) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...(description ? { description } : {}) });

const Standard = Type.Unsafe<'ERC721' | 'ERC1155'>({
  type: 'string',
  enum: ['ERC721', 'ERC1155'],
  description: 'By ERC-165 supportsInterface',
});

const chainParam = Type.String({ description: 'Chain, e.g. ethereum' });
const contractParam = Type.String({ description: 'NFT contract, 0x-prefixed (mixed case must pass EIP-55)' });

export const networkQuery = {
  network: Type.Optional(
    Type.String({ description: "A network of the chain; default: the key's mainnet (live) or first testnet (test)" }),
  ),
};

export const TokenParams = Type.Object({
  chain: chainParam,
  contract: contractParam,
  token_id: Type.String({ description: 'Token id: a decimal (e.g. 42) or 0x-prefixed hex unsigned 256-bit integer' }),
});
export const CollectionParams = Type.Object({ chain: chainParam, contract: contractParam });
export const OwnedParams = Type.Object({
  chain: chainParam,
  address: Type.String({ description: 'Owner, 0x-prefixed (mixed case must pass EIP-55)' }),
});
export const OwnedQuery = Type.Object({
  ...paginationQuery(50),
  ...networkQuery,
  exclude_spam: Type.Optional(Type.Boolean({ description: 'true: leave out collections judged spam (docs/spam.md)' })),
  exclude_airdrops: Type.Optional(
    Type.Boolean({
      description: 'true: leave out NFTs minted to the owner in a transaction another address sent (docs/spam.md#airdrops)',
    }),
  ),
});

export const RefreshBody: TSchema = Type.Unsafe({
  description: 'No body is needed; any body is ignored',
});

const Trait = Type.Object({ trait_type: Type.String({ description: '"" when the document gives none' }), value: Type.String() });

export const NftMetadataResponse = Type.Object({
  contract: Type.String({ description: 'Lower-case' }),
  chain: Type.String(),
  network: Type.String(),
  token_id: Type.String({ description: 'Decimal' }),
  standard: Standard,
  owner: NullableString('From the index; for ERC-1155 the holder when there is exactly one, else null'),
  name: NullableString(),
  description: NullableString(),
  image_url: NullableString('As the metadata gives it: may be ipfs://, ar:// or data:'),
  image_gateway_url: NullableString('The image through the configured IPFS or Arweave gateway'),
  traits: Type.Array(Trait, { description: 'attributes (or traits), values as strings' }),
  token_uri: NullableString('tokenURI(id) or uri(id) with {id} substituted; null when the call reverted'),
  metadata_error: NullableString('Why the metadata could not be read (e.g. "timeout after 5000 ms"); null when it was'),
  fetched_at: Type.String({ format: 'date-time', description: 'When the metadata was fetched (or tried)' }),
});

export const NftCollectionResponse = Type.Object({
  contract: Type.String(),
  chain: Type.String(),
  network: Type.String(),
  name: NullableString('name(), else the contractURI name'),
  symbol: NullableString(),
  standard: Standard,
  total_supply: Type.Integer({ description: 'totalSupply() when the contract has it, else token ids in the index' }),
  num_owners: Type.Integer({ description: 'Distinct owners in the index' }),
  floor_price_eth: NullableString('From the configured floor price source; null when none is configured'),
  floor_price_usd: NullableString('From the configured floor price source; null when none is configured'),
  description: NullableString('From the contractURI document'),
  image_url: NullableString('From the contractURI document'),
  image_gateway_url: NullableString('The image through the configured gateway'),
  banner_url: NullableString('From the contractURI document'),
  contract_uri: NullableString('contractURI(); null when the contract has none'),
  metadata_error: NullableString('Why the contractURI document could not be read; null when it was (or there is none)'),
  is_spam: Type.Boolean({ description: 'The spam verdict (docs/spam.md)' }),
  spam_reasons: Type.Array(Type.String(), {
    description: 'Reason codes found, e.g. url_in_name, airdrop_fanout, HighAirdropPercent, operator_deny (docs/spam.md)',
  }),
  spam_confidence: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    enum: ['LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH', null],
    description: "Alchemy's spamConfidenceLevel names; null when not spam",
  }),
});

const OwnedNft = Type.Object({
  contract: Type.String(),
  token_id: Type.String({ description: 'Decimal' }),
  name: NullableString('From the cached metadata; null until it was fetched'),
  collection_name: NullableString('name() of the contract'),
  image_url: NullableString(),
  image_gateway_url: NullableString(),
  standard: Standard,
  balance: Type.String({ description: 'Units held: always "1" for ERC-721' }),
  is_spam: Type.Boolean({ description: "The collection's spam verdict (docs/spam.md)" }),
  is_airdrop: Type.Boolean({ description: 'Minted to this owner in a transaction another address sent (docs/spam.md#airdrops)' }),
});

export const OwnedNftsResponse = Type.Object({
  address: Type.String(),
  chain: Type.String(),
  network: Type.String(),
  nfts: Type.Array(OwnedNft, { description: 'Ordered by contract, then token id' }),
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  block_number: Type.Unsafe<number | null>({
    type: ['integer', 'null'],
    description: 'The newest indexed block the ownership is valid at; null before the first',
  }),
});
