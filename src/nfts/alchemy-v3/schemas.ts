import { type TSchema, Type } from 'typebox';

// Type lists, not anyOf, for nullable fields, as in the other routes' schemas.
const Nullable = (type: 'string' | 'number' | 'integer', description?: string) =>
  Type.Unsafe<string | number | null>({ type: [type, 'null'], ...(description ? { description } : {}) });
const AlwaysNull = (description: string) => Type.Unsafe<null>({ type: 'null', description });

export const V3Params = Type.Object({
  chain: Type.String({ description: 'Chain, e.g. ethereum' }),
  network: Type.String({ description: 'Network of the chain, e.g. mainnet or devnet' }),
  apiKey: Type.String({ description: 'Your API key (alchemy-sdk: new Alchemy({ url }) with this path as url)' }),
});

const address = (description: string) => Type.Optional(Type.String({ maxLength: 100, description }));
const flag = (description: string) => Type.Optional(Type.Boolean({ description }));
const pageKey = Type.Optional(Type.String({ maxLength: 512, description: 'The pageKey of the previous page, unchanged' }));
const stringList = (description: string) =>
  Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100, description }));
const ignored = (description: string) => Type.Optional(Type.String({ maxLength: 200, description }));

const spamQuery = {
  'excludeFilters[]': stringList(
    'SPAM leaves out collections judged spam (docs/spam.md); AIRDROPS leaves out NFTs minted to the owner in a transaction another address sent',
  ),
  excludeFilters: stringList('Same as excludeFilters[]'),
  'includeFilters[]': stringList(
    'Keeps only NFTs matching one of the filters: SPAM, collections judged spam; AIRDROPS, NFTs minted to the owner in a transaction another address sent',
  ),
  includeFilters: stringList('Same as includeFilters[]'),
  spamConfidenceLevel: Type.Optional(
    Type.String({
      maxLength: 20,
      description:
        'VERY_HIGH, HIGH, MEDIUM or LOW: with a SPAM filter, only collections judged spam at this confidence or above count as spam (default: every spam collection)',
    }),
  ),
};

export const OwnerQuery = Type.Object({
  owner: address('The owner, 0x-prefixed (required)'),
  'contractAddresses[]': stringList('Only these contracts (at most 45)'),
  contractAddresses: stringList('Same as contractAddresses[]'),
  withMetadata: flag('Default true; false gives contractAddress, tokenId and balance only'),
  pageKey,
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 100, description: 'NFTs per page (1-100)' }),
  orderBy: ignored(
    'transferTime (or TRANSFERTIME): the newest acquired first, each with acquiredAt; omitted: contract address, then token id',
  ),
  ...spamQuery,
  tokenUriTimeoutInMs: Type.Optional(Type.Integer({ minimum: 0, description: 'Accepted; lists read the metadata cache' })),
});

export const OwnerContractsQuery = Type.Object({
  owner: address('The owner, 0x-prefixed (required)'),
  pageKey,
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 100, description: 'Contracts per page (1-100)' }),
  orderBy: ignored('transferTime (or TRANSFERTIME): the contract whose token came to the owner last first; omitted: by address'),
  ...spamQuery,
});

export const TokenQuery = Type.Object({
  contractAddress: address('The NFT contract (required)'),
  tokenId: Type.Optional(Type.String({ maxLength: 100, description: 'Decimal or 0x-hex token id (required)' })),
  tokenType: ignored('ERC721 or ERC1155: accepted; the standard is read from the contract (ERC-165)'),
  refreshCache: flag(
    'true fetches the metadata again (as POST /v1/nfts/{chain}/metadata/{contract}/{token_id}/refresh, nfts.refresh compute units); default false reads the cache',
  ),
  tokenUriTimeoutInMs: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Accepted; the nfts.metadata_timeout_ms setting bounds the fetch' }),
  ),
});

export const ContractQuery = Type.Object({ contractAddress: address('The NFT contract (required)') });

export const RarityQuery = Type.Object({
  contractAddress: address('The NFT contract (required)'),
  tokenId: Type.Optional(Type.String({ maxLength: 100, description: 'Decimal or 0x-hex token id (required)' })),
});

export const HolderQuery = Type.Object({
  wallet: address('The wallet, 0x-prefixed (required)'),
  contractAddress: address('The NFT contract (required)'),
});

export const V3IsHolderOfContractResponse = Type.Object({
  isHolderOfContract: Type.Boolean({ description: 'Whether the index says the wallet holds any token of the contract' }),
});

export const ContractNftsQuery = Type.Object({
  contractAddress: address('The NFT contract (required)'),
  withMetadata: flag('Default true; false gives contractAddress and tokenId only'),
  pageKey: Type.Optional(Type.String({ maxLength: 100, description: "The previous page's pageKey (the next token id, hex)" })),
  startToken: Type.Optional(
    Type.String({ maxLength: 100, description: "First token id, decimal or 0x-hex (Alchemy's name for pageKey)" }),
  ),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 100, description: 'NFTs per page (1-100)' }),
  tokenUriTimeoutInMs: Type.Optional(Type.Integer({ minimum: 0, description: 'Accepted; lists read the metadata cache' })),
});

export const OwnersForNftQuery = Type.Object({
  contractAddress: address('The NFT contract (required)'),
  tokenId: Type.Optional(Type.String({ maxLength: 100, description: 'Decimal or 0x-hex token id (required)' })),
  pageKey,
  pageSize: Type.Integer({ minimum: 1, maximum: 1000, default: 1000, description: 'Owners per page (1-1000)' }),
});

export const OwnersForContractQuery = Type.Object({
  contractAddress: address('The NFT contract (required)'),
  withTokenBalances: flag('Default false; true gives each owner with its token ids and balances'),
  includeCount: flag('Adds totalCount (distinct owners) when withTokenBalances is not true'),
  pageKey,
  pageSize: Type.Integer({
    minimum: 1,
    maximum: 50_000,
    default: 50_000,
    description: 'Owners per page (1-50000); Alchemy pages at 50,000 and takes no pageSize',
  }),
});

const OpenSeaMetadata = Type.Object(
  {
    floorPrice: Nullable('number', 'From the configured floor price source, in ETH'),
    collectionName: Nullable('string', 'name(), else the contractURI name'),
    collectionSlug: AlwaysNull('No OpenSea data'),
    safelistRequestStatus: AlwaysNull('No OpenSea data'),
    imageUrl: Nullable('string', 'The contractURI image, through the configured gateway'),
    description: Nullable('string', 'From the contractURI document'),
    externalUrl: AlwaysNull('No OpenSea data'),
    twitterUsername: AlwaysNull('No OpenSea data'),
    discordUrl: AlwaysNull('No OpenSea data'),
    bannerImageUrl: Nullable('string', 'From the contractURI document'),
    lastIngestedAt: AlwaysNull('No OpenSea data'),
  },
  { description: "The collection's contractURI document (OpenSea's contract-level metadata standard)" },
);

const contractFields = {
  address: Type.String({ description: 'Lower-case' }),
  name: Nullable('string'),
  symbol: Nullable('string'),
  totalSupply: Nullable('string', 'totalSupply(), else token ids in the index; decimal'),
  tokenType: Type.Unsafe<string>({ type: 'string', enum: ['ERC721', 'ERC1155'] }),
  contractDeployer: AlwaysNull('Not tracked'),
  deployedBlockNumber: AlwaysNull('Not tracked'),
  openSeaMetadata: OpenSeaMetadata,
};

const spamFields = {
  isSpam: Type.Boolean({ description: 'The spam verdict (docs/spam.md)' }),
  spamClassifications: Type.Array(Type.String(), {
    description: "Reason codes: Alchemy's NftSpamClassification names where one fits (HighAirdropPercent), else Blockyard's",
  }),
};

export const V3ContractResponse = Type.Object({ ...contractFields, ...spamFields });

export const V3IsSpamContractResponse = Type.Object({ isSpamContract: Type.Boolean() });

export const V3SpamContractsResponse = Type.Object({
  contractAddresses: Type.Array(Type.String(), {
    description: 'NFT contracts judged spam among the first 10,000 classified (by address), and every denied contract; sorted',
  }),
});

const NftContract = Type.Object({ ...contractFields, ...spamFields });

const nftFields = {
  contract: NftContract,
  tokenId: Type.String({ description: 'Decimal' }),
  tokenType: Type.Unsafe<string>({ type: 'string', enum: ['ERC721', 'ERC1155'] }),
  name: Nullable('string'),
  description: Nullable('string'),
  tokenUri: Nullable('string', 'The token URI through the configured IPFS/Arweave gateway'),
  image: Type.Object({
    cachedUrl: Nullable('string', 'The image through the configured gateway'),
    thumbnailUrl: AlwaysNull('No image cache'),
    pngUrl: AlwaysNull('No image cache'),
    contentType: AlwaysNull('No image cache'),
    size: AlwaysNull('No image cache'),
    originalUrl: Nullable('string', 'As the metadata gives it'),
  }),
  raw: Type.Object({
    tokenUri: Nullable('string', 'tokenURI(id), or uri(id) with {id} substituted'),
    metadata: Type.Unsafe<Record<string, unknown>>({
      type: 'object',
      additionalProperties: true,
      description: 'name, description, image and attributes as read from the document',
    }),
    error: Nullable('string', 'Why the metadata could not be read; null when it was'),
  }),
  collection: AlwaysNull('No OpenSea collection data'),
  mint: Type.Object({
    mintAddress: AlwaysNull('Not tracked'),
    blockNumber: AlwaysNull('Not tracked'),
    timestamp: AlwaysNull('Not tracked'),
    transactionHash: AlwaysNull('Not tracked'),
  }),
  owners: AlwaysNull('See getOwnersForNFT'),
  timeLastUpdated: Nullable('string', 'When the metadata was fetched (ISO 8601); null until it was'),
};

export const V3NftResponse = Type.Object(nftFields);

const balance = Type.String({ description: 'Units held, decimal' });
const acquiredAt = Type.Optional(
  Type.Object(
    {
      blockTimestamp: Nullable('string', 'The block time (ISO 8601); null when the block is not indexed'),
      blockNumber: Nullable('integer', 'null when no transfer to the owner is indexed'),
    },
    { description: 'With orderBy=transferTime only: the block of the newest transfer that brought the token to the owner' },
  ),
);
const BaseOwnedNft = Type.Object({ contractAddress: Type.String(), tokenId: Type.String(), balance, acquiredAt });
const OwnedNft = Type.Object({ ...nftFields, balance, acquiredAt });

export const V3OwnedResponse = Type.Object({
  ownedNfts: Type.Array(Type.Union([OwnedNft, BaseOwnedNft]) as TSchema),
  totalCount: Type.Integer({ description: 'NFTs (contract and token id pairs) the owner holds, for the contract filter' }),
  pageKey: Nullable('string', 'Pass back as pageKey for the next page; null on the last'),
  validAt: Type.Object({
    blockNumber: Nullable('integer', 'The newest indexed block'),
    blockHash: Nullable('string'),
    blockTimestamp: Nullable('string'),
  }),
});

export const V3ContractsForOwnerResponse = Type.Object({
  contracts: Type.Array(
    Type.Object({
      ...contractFields,
      ...spamFields,
      totalBalance: Type.String({ description: "Units the owner holds across the contract's tokens, decimal" }),
      numDistinctTokensOwned: Type.String({ description: 'Token ids the owner holds, decimal' }),
      displayNft: Type.Object(
        { tokenId: Type.String(), name: Nullable('string', 'From its metadata; null until fetched') },
        { description: 'The lowest token id the owner holds' },
      ),
      image: nftFields.image,
    }),
  ),
  totalCount: Type.Integer({ description: 'Contracts the owner holds tokens of, for the filters' }),
  pageKey: Nullable('string', 'Pass back as pageKey for the next page; null on the last'),
});

export const V3ContractNftsResponse = Type.Object({
  nfts: Type.Array(
    Type.Union([V3NftResponse, Type.Object({ contractAddress: Type.String(), tokenId: Type.String() })]) as TSchema,
  ),
  pageKey: Nullable('string', 'The next token id (hex), to pass back as pageKey or startToken; null on the last page'),
});

export const V3OwnersForNftResponse = Type.Object({
  owners: Type.Array(Type.String()),
  pageKey: Nullable('string', 'null on the last page'),
});

export const V3OwnersForContractResponse = Type.Object({
  owners: Type.Array(
    Type.Union([
      Type.String(),
      Type.Object({
        ownerAddress: Type.String(),
        tokenBalances: Type.Array(Type.Object({ tokenId: Type.String(), balance })),
      }),
    ]) as TSchema,
  ),
  pageKey: Nullable('string', 'null on the last page'),
  totalCount: Type.Optional(Type.Integer({ description: 'With includeCount=true' })),
});

const batchTokenType = Type.Unsafe<string>({
  type: 'string',
  enum: ['ERC721', 'ERC1155', 'NOT_A_CONTRACT', 'NO_SUPPORTED_NFT_STANDARD'],
  description: 'NOT_A_CONTRACT: no code at the address; NO_SUPPORTED_NFT_STANDARD: neither ERC-721 nor ERC-1155 by ERC-165',
});
const BatchContract = Type.Object({ ...contractFields, tokenType: batchTokenType, ...spamFields });
const maxBatch = 100;

export const NftMetadataBatchBody = Type.Object({
  tokens: Type.Array(
    Type.Object({
      contractAddress: Type.String({ maxLength: 100, description: 'The NFT contract' }),
      tokenId: Type.Union([Type.String({ maxLength: 100 }), Type.Integer({ minimum: 0 })], {
        description: 'Decimal or 0x-hex token id',
      }),
      tokenType: Type.Optional(Type.String({ maxLength: 30, description: 'Accepted; the standard is read from the contract' })),
    }),
    { minItems: 1, maxItems: maxBatch, description: `The tokens (1-${maxBatch}), answered in this order` },
  ),
  tokenUriTimeoutInMs: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Accepted; the nfts.metadata_timeout_ms setting bounds each fetch' }),
  ),
  refreshCache: flag('true fetches each token again (nfts.refresh compute units a token); default false reads the cache'),
});

export const V3NftBatchResponse = Type.Object({
  nfts: Type.Array(Type.Object({ ...nftFields, contract: BatchContract, tokenType: batchTokenType })),
});

export const ContractMetadataBatchBody = Type.Object({
  contractAddresses: Type.Array(Type.String({ maxLength: 100 }), {
    minItems: 1,
    maxItems: maxBatch,
    description: `The NFT contracts (1-${maxBatch}), answered in this order`,
  }),
});

export const V3ContractBatchResponse = Type.Object({ contracts: Type.Array(BatchContract) });

export const V3AttributeSummaryResponse = Type.Object({
  contractAddress: Type.String({ description: 'Lower-case' }),
  totalSupply: Type.String({
    description: 'Held tokens counted (the first 20,000 by token id whose metadata was fetched), decimal',
  }),
  summary: Type.Record(Type.String(), Type.Record(Type.String(), Type.Integer()), {
    description: 'Trait type, then value, then how many counted tokens have it',
  }),
});

export const V3RarityResponse = Type.Object({
  rarities: Type.Array(
    Type.Object({
      traitType: Type.String(),
      value: Type.String(),
      prevalence: Type.Number({ minimum: 0, maximum: 1, description: 'Share of the counted tokens with this value' }),
    }),
  ),
});
