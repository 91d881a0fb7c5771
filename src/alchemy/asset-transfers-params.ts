import { invalidRequest } from '../core/errors.ts';
import type { TransferCategory } from '../transfers/categories.ts';
import type { TransferFilter } from '../transfers/query.ts';
import {
  paramsObject,
  parseAddress,
  parseAddressList,
  parseBoolean,
  parseChoice,
  parseQuantity,
  positionalParams,
  quote,
} from './rpc-params.ts';

/** Alchemy's categories; `external` is the transaction's own value (our `native`). */
export const alchemyCategories = ['external', 'internal', 'erc20', 'erc721', 'erc1155', 'specialnft'] as const;
export type AlchemyCategory = (typeof alchemyCategories)[number];

/** Ours to Alchemy's. `specialnft` (CryptoKitties-like contracts) has no rows in the index: it matches nothing. */
export const alchemyCategoryOf: Record<TransferCategory, AlchemyCategory> = {
  native: 'external',
  internal: 'internal',
  erc20: 'erc20',
  erc721: 'erc721',
  erc1155: 'erc1155',
};
const ourCategoryOf = new Map<string, TransferCategory>(
  Object.entries(alchemyCategoryOf).map(([ours, theirs]) => [theirs, ours as TransferCategory]),
);

const members = [
  'fromBlock',
  'toBlock',
  'fromAddress',
  'toAddress',
  'contractAddresses',
  'category',
  'order',
  'withMetadata',
  'excludeZeroValue',
  'maxCount',
  'pageKey',
] as const;

/** Alchemy's page size: `maxCount` defaults to and may not exceed 1,000 (0x3e8). */
export const maxAssetTransfers = 1000;
/** Alchemy's contractAddresses filter takes up to 1,000 contracts. */
const maxContracts = 1000;

export interface AssetTransfersRequest {
  readonly filter: TransferFilter;
  readonly maxCount: number;
  readonly withMetadata: boolean;
  readonly pageKey?: string;
}

/**
 * `alchemy_getAssetTransfers`'s one object param as a transfer filter. `fromBlock: "latest"` needs the
 * newest indexed block (`head`), read only then.
 */
export async function parseAssetTransfersParams(
  network: string,
  params: unknown,
  head: () => Promise<number>,
): Promise<AssetTransfersRequest> {
  const [raw] = positionalParams(params, 1, 1);
  const p = paramsObject('params[0]', raw, members);
  const fromBlock = await parseBlock('fromBlock', p.fromBlock, head);
  // Every indexed transfer is at or below the newest indexed block: `latest` as toBlock bounds nothing.
  const toBlock = p.toBlock === 'latest' || p.toBlock === 'indexed' ? undefined : await parseBlock('toBlock', p.toBlock, head);
  if (fromBlock !== undefined && toBlock !== undefined && toBlock < fromBlock) {
    throw invalidRequest('toBlock', `block ${toBlock} is below fromBlock ${fromBlock}`);
  }
  const from = p.fromAddress === undefined ? undefined : parseAddress('fromAddress', p.fromAddress);
  const to = p.toAddress === undefined ? undefined : parseAddress('toAddress', p.toAddress);
  // An empty list is no filter, as leaving it out is.
  const contracts =
    p.contractAddresses === undefined ? [] : parseAddressList('contractAddresses', p.contractAddresses, maxContracts);
  if (p.pageKey !== undefined && typeof p.pageKey !== 'string') throw invalidRequest('pageKey', 'must be a string');
  const filter: TransferFilter = {
    network,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
    categories: parseCategories(p.category),
    ...(contracts.length > 0 ? { contracts } : {}),
    // Block 0 is the default: spelled out (`0x0`, `earliest`) it is the same query, and pages on its keys.
    ...(fromBlock === undefined || fromBlock === 0 ? {} : { fromBlock }),
    ...(toBlock === undefined ? {} : { toBlock }),
    order: parseChoice('order', p.order, ['asc', 'desc'] as const, 'asc'),
    // Alchemy leaves zero-value transfers out unless asked.
    excludeZeroValue: parseBoolean('excludeZeroValue', p.excludeZeroValue, true),
  };
  return {
    filter,
    maxCount: p.maxCount === undefined ? maxAssetTransfers : parseWholeCount(p.maxCount),
    withMetadata: parseBoolean('withMetadata', p.withMetadata, false),
    ...(p.pageKey === undefined ? {} : { pageKey: p.pageKey }),
  };
}

function parseWholeCount(value: unknown): number {
  const count = parseQuantity('maxCount', value, maxAssetTransfers);
  if (count === 0) throw invalidRequest('maxCount', 'must be at least 1 (0x1)');
  return count;
}

/**
 * A block bound: hex, a number or decimal digits, `earliest` (0), `latest` or `indexed` (both the newest
 * indexed block: transfers exist here only once indexed); absent: no bound.
 */
async function parseBlock(name: string, value: unknown, head: () => Promise<number>): Promise<number | undefined> {
  if (value === undefined || value === null) return undefined;
  if (value === 'earliest') return 0;
  if (value === 'latest' || value === 'indexed') return head();
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return parseQuantity(name, value);
}

/** The required category list, in Alchemy's names. */
function parseCategories(value: unknown): TransferCategory[] {
  if (value === undefined) {
    throw invalidRequest('category', `is required: a list of any of ${alchemyCategories.join(', ')}`);
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidRequest('category', `must be a non-empty list of any of ${alchemyCategories.join(', ')}`);
  }
  const categories = new Set<TransferCategory>();
  for (const name of value) {
    if (typeof name !== 'string' || !(alchemyCategories as readonly string[]).includes(name)) {
      throw invalidRequest('category', `unknown category ${quote(name)} (expected any of ${alchemyCategories.join(', ')})`);
    }
    const ours = ourCategoryOf.get(name);
    if (ours !== undefined) categories.add(ours);
  }
  return [...categories];
}
