import { formatUnits, type Hex, numberToHex, pad } from 'viem';
import type { TokenFacts } from '../tokens/token-facts.ts';
import type { TransferRow } from '../transfers/query.ts';
import type { TransferGroup } from './asset-transfers-page.ts';
import { alchemyCategoryOf } from './asset-transfers-params.ts';

const nativeDecimals = 18;

/** One item of `alchemy_getAssetTransfers`' answer, in Alchemy's field order. */
export interface AssetTransferItem {
  blockNum: Hex;
  uniqueId: string;
  hash: string;
  from: string;
  to: string;
  /** Base units over 10^decimals as a float (ether for native); null for NFTs and tokens without known decimals. */
  value: number | null;
  erc721TokenId: Hex | null;
  erc1155Metadata: { tokenId: Hex; value: Hex }[] | null;
  tokenId: Hex | null;
  asset: string | null;
  category: string;
  rawContract: { value: Hex | null; address: string | null; decimal: Hex | null };
  metadata?: { blockTimestamp: string };
}

export interface ItemContext {
  readonly nativeSymbol: string;
  readonly withMetadata: boolean;
  /** Facts of ERC-20 tokens the query found no metadata for. */
  readonly learned: ReadonlyMap<string, TokenFacts>;
  /** `symbol()` of the page's NFT contracts that have one. */
  readonly nftSymbols: ReadonlyMap<string, string>;
}

/** Token ids as Alchemy writes them: 32 bytes of hex. */
const tokenIdHex = (id: string | null): Hex => pad(numberToHex(BigInt(id ?? 0)), { size: 32 });
const quantityHex = (value: string): Hex => numberToHex(BigInt(value));

/**
 * `uniqueId`: `<hash>:external` for the transaction's value, `<hash>:internal:<trace path>` for a call
 * inside it, `<hash>:log:<log index in hex>` for a token event (one per log: a batch is one item).
 */
function uniqueIdOf(row: TransferRow): string {
  if (row.category === 'native') return `${row.txHash}:external`;
  if (row.category === 'internal') return `${row.txHash}:internal:${row.tracePath}`;
  return `${row.txHash}:log:${numberToHex(row.logIndex ?? 0)}`;
}

/** The item of one group (one transfer, or one ERC-1155 log with its ids and amounts). */
export function formatAssetTransfer(group: TransferGroup, context: ItemContext): AssetTransferItem {
  const row = group[0]!;
  const item: AssetTransferItem = {
    blockNum: numberToHex(row.blockNumber),
    uniqueId: uniqueIdOf(row),
    hash: row.txHash,
    from: row.from,
    to: row.to,
    ...amountFields(group, context),
    category: alchemyCategoryOf[row.category],
    rawContract: rawContractOf(row, context),
  };
  if (context.withMetadata) item.metadata = { blockTimestamp: row.blockTimestamp.toISOString() };
  return item;
}

type AmountFields = Pick<AssetTransferItem, 'value' | 'erc721TokenId' | 'erc1155Metadata' | 'tokenId' | 'asset'>;

function amountFields(group: TransferGroup, context: ItemContext): AmountFields {
  const row = group[0]!;
  const none = { erc721TokenId: null, erc1155Metadata: null, tokenId: null };
  switch (row.category) {
    case 'native':
    case 'internal':
      return { value: Number(formatUnits(BigInt(row.value), nativeDecimals)), ...none, asset: context.nativeSymbol };
    case 'erc20': {
      const facts = factsOf(row, context);
      const value = facts ? Number(formatUnits(BigInt(row.value), facts.decimals)) : null;
      return { value, ...none, asset: facts?.symbol || null };
    }
    case 'erc721': {
      const id = tokenIdHex(row.tokenId);
      return { value: null, erc721TokenId: id, erc1155Metadata: null, tokenId: id, asset: nftSymbolOf(row, context) };
    }
    case 'erc1155': {
      const erc1155Metadata = group.map((entry) => ({ tokenId: tokenIdHex(entry.tokenId), value: quantityHex(entry.value) }));
      return { value: null, erc721TokenId: null, erc1155Metadata, tokenId: null, asset: nftSymbolOf(row, context) };
    }
  }
}

function nftSymbolOf(row: TransferRow, context: ItemContext): string | null {
  return row.contract === null ? null : (context.nftSymbols.get(row.contract) ?? null);
}

function factsOf(row: TransferRow, context: ItemContext): TokenFacts | undefined {
  if (row.decimals !== null) return { decimals: row.decimals, symbol: row.symbol ?? '' };
  return row.contract === null ? undefined : context.learned.get(row.contract);
}

function rawContractOf(row: TransferRow, context: ItemContext): AssetTransferItem['rawContract'] {
  if (row.category === 'native' || row.category === 'internal') {
    return { value: quantityHex(row.value), address: null, decimal: numberToHex(nativeDecimals) };
  }
  if (row.category === 'erc20') {
    const facts = factsOf(row, context);
    return { value: quantityHex(row.value), address: row.contract, decimal: facts ? numberToHex(facts.decimals) : null };
  }
  return { value: null, address: row.contract, decimal: null };
}
