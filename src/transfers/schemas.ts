import { Type } from 'typebox';
import { maxPageSize } from '../http/pagination.ts';
import { StringEnum } from '../http/schemas.ts';
import { transferCategories } from './categories.ts';

const Nullable = (type: 'string' | 'integer', description: string) =>
  Type.Unsafe<string | number | null>({ type: [type, 'null'], description });

export const TransfersParams = Type.Object({
  chain: Type.String({ description: 'Chain, e.g. ethereum' }),
  address: Type.String({ description: 'The address whose transfers to list, 0x-prefixed (mixed case must pass EIP-55)' }),
});

export const TransfersQuery = Type.Object({
  network: Type.Optional(
    Type.String({ description: "A network of the chain; default: the key's mainnet (live) or first testnet (test)" }),
  ),
  direction: StringEnum(['in', 'out', 'both'] as const, {
    default: 'both',
    description: 'in: received by the address; out: sent by it; both (a transfer to itself comes once)',
  }),
  category: Type.Optional(
    Type.Array(Type.String({ maxLength: 100 }), {
      maxItems: 10,
      description: `Any of ${transferCategories.join(', ')}: comma-separated (category=erc20,erc721), repeated (category=erc20&category=erc721) or both; default all`,
    }),
  ),
  contract: Type.Optional(
    Type.String({
      description: 'Only ERC-20/721/1155 transfers of this token contract (native and internal transfers have none)',
    }),
  ),
  from_block: Type.Optional(
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'First block, inclusive' }),
  ),
  to_block: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Last block, inclusive' })),
  order: StringEnum(['asc', 'desc'] as const, { default: 'asc', description: 'By block, then place in the block' }),
  limit: Type.Integer({ minimum: 1, maximum: maxPageSize, default: 50, description: `Items per page (1-${maxPageSize})` }),
  page_key: Type.Optional(
    Type.String({
      maxLength: 512,
      description: 'The page_key of the previous page, unchanged; only with the same other parameters',
    }),
  ),
  exclude_spam: Type.Optional(
    Type.Boolean({
      description:
        'true: leave out transfers of the tokens and NFT collections the address holds or has held that are judged spam (docs/spam.md)',
    }),
  ),
});

const Transfer = Type.Object({
  id: Type.String({
    description:
      'Stable identifier: <tx_hash>:native, <tx_hash>:internal:<trace path>, <tx_hash>:log:<log index>[:<batch index> for ERC-1155]',
  }),
  block_number: Type.Integer(),
  block_timestamp: Type.String({ description: 'ISO 8601, UTC' }),
  tx_hash: Type.String(),
  log_index: Nullable('integer', 'The Transfer event of the token transfer; null for native and internal'),
  from: Type.String({ description: 'Lower-case address' }),
  to: Type.String({ description: 'Lower-case address (the created contract for a creation with value)' }),
  category: StringEnum(transferCategories),
  contract: Nullable('string', 'Token contract; null for native and internal'),
  value: Type.String({ description: 'Decimal string in base units (wei, token units); for NFTs the amount (1 for ERC-721)' }),
  token_id: Nullable('string', 'NFT token id as a decimal string; null otherwise'),
  decimals: Nullable('integer', "18 for native and internal; the ERC-20 token's when its metadata is known; else null"),
  symbol: Nullable('string', "The chain's coin for native and internal; the ERC-20 token's when known; else null"),
});

export const TransfersResponse = Type.Object({
  transfers: Type.Array(Transfer),
  page_key: Type.Optional(Type.String({ description: 'Pass as page_key for the next page; absent on the last page' })),
});
