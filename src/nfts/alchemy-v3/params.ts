import type { Address } from 'viem';
import { invalidRequest } from '../../core/errors.ts';
import { parseAddressParam } from '../../http/address-param.ts';
import { type ConfidenceLevel, confidenceLevels } from '../../spam/reasons.ts';
import { fingerprintOf } from '../../transfers/page-key.ts';
import type { AcquisitionKey } from '../index-reads.ts';
import { parseTokenId } from '../params.ts';

/** Alchemy's limit on `contractAddresses[]` of getNFTsForOwner. */
export const maxContractFilter = 45;

/** A required address query parameter, named as Alchemy names it (`owner`, `contractAddress`). */
export function requiredAddress(name: string, value: string | undefined): Address {
  if (value === undefined || value === '') throw invalidRequest(name, 'is required');
  return parseAddressParam(name, value);
}

export function requiredTokenId(value: string | undefined): bigint {
  if (value === undefined || value === '') throw invalidRequest('tokenId', 'is required');
  return parseTokenId(value, 'tokenId');
}

/**
 * `contractAddresses[]` as axios sends it (`contractAddresses[]=a&contractAddresses[]=b`), or
 * `contractAddresses=a` repeated: lower-cased, each checked.
 */
export function contractFilter(query: Record<string, unknown>): Address[] | undefined {
  const values = [query['contractAddresses[]'], query.contractAddresses].flat().filter((v) => v !== undefined) as string[];
  if (values.length === 0) return undefined;
  if (values.length > maxContractFilter)
    throw invalidRequest('contractAddresses', `at most ${maxContractFilter} contracts (got ${values.length})`);
  return [...new Set(values.map((value) => parseAddressParam('contractAddresses', value)))];
}

/** Every value of a list parameter, sent with or without `[]` (axios adds it to arrays). */
export function listParam(query: Record<string, unknown>, name: string): string[] {
  return [query[`${name}[]`], query[name]].flat().filter((v) => v !== undefined) as string[];
}

const maxPageKeyLength = 512;

/** An opaque page key: the last item's sort key and the query's fingerprint, base64url JSON. */
export function encodeV3PageKey(sortKey: readonly string[], query: unknown): string {
  return Buffer.from(JSON.stringify([...sortKey, fingerprintOf(query)])).toString('base64url');
}

/** The sort key of a page key this API gave for the same query; 400 naming `pageKey` otherwise. */
export function decodeV3PageKey(text: string, query: unknown, parts: number): string[] {
  let fields: unknown;
  try {
    if (text.length > maxPageKeyLength || !/^[A-Za-z0-9_-]+$/.test(text)) throw new Error('malformed');
    fields = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw invalidRequest('pageKey', 'is not a page key this API gave (pass it back unchanged)');
  }
  const valid = (candidate: unknown): candidate is string[] =>
    Array.isArray(candidate) &&
    candidate.length === parts + 1 &&
    candidate.every((field) => typeof field === 'string' && /^[0-9a-fx]{1,80}$/.test(field));
  if (!valid(fields)) throw invalidRequest('pageKey', 'is not a page key this API gave (pass it back unchanged)');
  const sortKey = fields.slice(0, parts) as string[];
  if (fields[parts] !== fingerprintOf(query))
    throw invalidRequest('pageKey', 'belongs to another query: page with the same parameters the page key came from');
  return sortKey;
}

const nftFilters = ['SPAM', 'AIRDROPS'] as const;

/** excludeFilters leaves matching NFTs out; includeFilters keeps only those matching one of its filters. */
export type FilterMode = 'exclude' | 'include';

/**
 * excludeFilters, includeFilters and spamConfidenceLevel of getNFTsForOwner: each value checked (400
 * naming the parameter), and both lists naming the same filter refused, as Alchemy does.
 */
export function ownerFilters(query: Record<string, unknown>): {
  spam?: { mode: FilterMode; level?: ConfidenceLevel };
  airdrops?: FilterMode;
} {
  const exclude = listParam(query, 'excludeFilters');
  const include = listParam(query, 'includeFilters');
  for (const [name, values] of [
    ['excludeFilters', exclude],
    ['includeFilters', include],
  ] as const) {
    const bad = values.find((value) => !(nftFilters as readonly string[]).includes(value));
    if (bad !== undefined) throw invalidRequest(name, `'${bad}' is not a filter: use ${nftFilters.join(' or ')}`);
  }
  if (exclude.some((value) => include.includes(value)))
    throw invalidRequest('includeFilters', 'names a filter excludeFilters names too: give each filter in one list');
  const level = query.spamConfidenceLevel;
  if (level !== undefined && !(confidenceLevels as readonly unknown[]).includes(level))
    throw invalidRequest('spamConfidenceLevel', `must be one of ${confidenceLevels.join(', ')}`);
  const modeOf = (filter: (typeof nftFilters)[number]): FilterMode | undefined =>
    exclude.includes(filter) ? 'exclude' : include.includes(filter) ? 'include' : undefined;
  const spam = modeOf('SPAM');
  const airdrops = modeOf('AIRDROPS');
  const levelPart = level === undefined ? {} : { level: level as ConfidenceLevel };
  return { ...(spam ? { spam: { mode: spam, ...levelPart } } : {}), ...(airdrops ? { airdrops } : {}) };
}

/** The acquisition block a transferTime page key starts with ('x': unknown). */
export function acquisitionBlockOf(field: string | undefined): number | null {
  if (field === 'x') return null;
  if (!/^[0-9]{1,15}$/.test(field ?? ''))
    throw invalidRequest('pageKey', 'is not a page key this API gave (pass it back unchanged)');
  return Number(field);
}

/** A transferTime page key's sort key: the acquisition block, contract, token id. */
export function acquisitionKeyOf([block, contract, tokenId]: string[]): AcquisitionKey {
  return { block: acquisitionBlockOf(block), contract: contract!, tokenId: tokenId! };
}

/** The owner methods' orderBy: transferTime (as the REST docs spell it, or alchemy-sdk's TRANSFERTIME), or none. */
export function ownerOrder(value: unknown): 'transferTime' | undefined {
  if (value === undefined) return undefined;
  if (value === 'transferTime' || value === 'TRANSFERTIME') return 'transferTime';
  throw invalidRequest('orderBy', 'must be transferTime (the newest acquired first); omit it for the address order');
}
