import { invalidRequest } from '../core/errors.ts';
import { maxListEntries, parseAddress } from './webhook-config.ts';

/**
 * An nft_transfer webhook's filter as Alchemy's Notify API spells it: a list of (contract, token id)
 * pairs, a pair without a token id meaning every token of the contract. Here the filter is
 * `contracts` × `token_ids`, so a list of pairs is kept only when it is exactly that: contracts alone,
 * or every listed contract with every listed id.
 */
export interface NftFilterPair {
  readonly contract_address: string;
  readonly token_id?: string;
}

/** The part of an nft_transfer filter the pairs stand for. */
export interface NftFilterKeys {
  readonly contracts?: readonly string[];
  readonly token_ids?: readonly string[];
}

const tokenIdPattern = /^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/;

/** One pair as sent, checked (a 400 naming `name.contract_address` or `name.token_id`) and normalised. */
export function parseNftFilterPair(pair: NftFilterPair, name: string): NftFilterPair {
  const contract = parseAddress(pair.contract_address, `${name}.contract_address`);
  if (pair.token_id === undefined) return { contract_address: contract };
  if (!tokenIdPattern.test(pair.token_id) || BigInt(pair.token_id) >= 1n << 256n) {
    throw invalidRequest(`${name}.token_id`, 'must be a uint256, as a decimal string or 0x hex');
  }
  return { contract_address: contract, token_id: BigInt(pair.token_id).toString() };
}

/** How many pairs a filter stands for (every contract with every id); 0 when it names no contract (every NFT). */
export function nftFilterPairCount(keys: NftFilterKeys): number {
  return (keys.contracts?.length ?? 0) * Math.max(1, keys.token_ids?.length ?? 0);
}

/** The `index`-th pair of a filter, contracts in their order, each with its ids in theirs. */
export function nftFilterPairAt(keys: NftFilterKeys, index: number): NftFilterPair {
  const ids = keys.token_ids ?? [];
  if (ids.length === 0) return { contract_address: keys.contracts![index]! };
  return { contract_address: keys.contracts![Math.floor(index / ids.length)]!, token_id: ids[index % ids.length]! };
}

const pairKey = (pair: NftFilterPair) =>
  pair.token_id === undefined ? pair.contract_address : `${pair.contract_address}/${pair.token_id}`;

/**
 * A list of pairs as contracts × token ids, or a 400 naming `field` when no such product is the list.
 * @example nftFilterKeysOf([{contract_address: a}, {contract_address: b}], 'nft_filters') // {contracts: [a, b]}
 */
export function nftFilterKeysOf(pairs: readonly NftFilterPair[], field: string): { contracts: string[]; token_ids?: string[] } {
  const contracts = [...new Set(pairs.map((pair) => pair.contract_address))];
  const ids = [...new Set(pairs.flatMap((pair) => (pair.token_id === undefined ? [] : [pair.token_id])))];
  const withIds = pairs.filter((pair) => pair.token_id !== undefined);
  if (ids.length === 0) return { contracts };
  const distinct = new Set(withIds.map(pairKey)).size;
  if (withIds.length !== pairs.length || distinct !== contracts.length * ids.length) {
    throw invalidRequest(
      field,
      'a webhook here watches contracts, or every listed contract with every listed token id (its filter is contracts x token ids): these pairs are neither; use one webhook per contract whose token ids you list',
    );
  }
  return { contracts, token_ids: ids };
}

/**
 * The filter after Alchemy's update-webhook-nft-filters: removals first, then additions, each pair
 * taken once; 400 when the result is no contracts × ids product, or empty (an nft_transfer filter
 * without contracts watches every NFT), or when the filter is too long to change pair by pair.
 */
export function changeNftFilterPairs(
  keys: NftFilterKeys,
  add: readonly NftFilterPair[],
  remove: readonly NftFilterPair[],
): { contracts: string[]; token_ids?: string[] } {
  const count = nftFilterPairCount(keys);
  if (count === 0) {
    throw invalidRequest(
      'webhook_id',
      'the webhook names no contract, so it watches every NFT transfer; give it contracts with PATCH /v1/webhooks/{id}',
    );
  }
  if (count > maxListEntries) {
    throw invalidRequest(
      'webhook_id',
      `its filter is ${count} contract and token id pairs; change a filter past ${maxListEntries} pairs with PATCH /v1/webhooks/{id}`,
    );
  }
  const pairs = new Map<string, NftFilterPair>();
  for (let index = 0; index < count; index++) {
    const pair = nftFilterPairAt(keys, index);
    pairs.set(pairKey(pair), pair);
  }
  for (const pair of remove) pairs.delete(pairKey(pair));
  for (const pair of add) pairs.set(pairKey(pair), pair);
  if (pairs.size === 0) {
    throw invalidRequest(
      'nft_filters_to_remove',
      'would leave the webhook no filter, which here means every NFT transfer of the chain; delete the webhook instead',
    );
  }
  if (pairs.size > maxListEntries)
    throw invalidRequest('nft_filters_to_add', `would make ${pairs.size} pairs; at most ${maxListEntries}`);
  return nftFilterKeysOf([...pairs.values()], 'nft_filters_to_add');
}
