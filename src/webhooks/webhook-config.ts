import { invalidRequest } from '../core/errors.ts';
import { assertAddressChecksum } from '../http/address-param.ts';
import type { WebhookEventType } from './event-types.ts';

/** Addresses one webhook watches at most (`webhook_addresses`). */
export const maxWebhookAddresses = 100_000;

/** A webhook's filter after validation: addresses and hashes lower-case, numbers as decimal strings. */
export interface WebhookConfig {
  readonly addresses?: readonly string[];
  readonly contracts?: readonly string[];
  readonly from?: readonly string[];
  readonly to?: readonly string[];
  readonly min_value?: string;
  readonly token_ids?: readonly string[];
  readonly tx_hashes?: readonly string[];
  /** eth_getLogs style: per position, null (any), one topic, or a list of alternatives. */
  readonly topics?: readonly (string | readonly string[] | null)[];
  readonly function_selectors?: readonly string[];
  /** Deliver once the event's block is this many blocks deep (0: at once), or once the network counts it final. */
  readonly confirmations?: number | 'finalized';
}
type ConfigKey = keyof WebhookConfig;

/** Which keys each type takes, and which of them it needs (at least one of the list). */
const keysByType: Record<WebhookEventType, { keys: readonly ConfigKey[]; needsOneOf?: readonly ConfigKey[] }> = {
  address_activity: { keys: ['addresses', 'function_selectors', 'min_value', 'confirmations'], needsOneOf: ['addresses'] },
  token_transfer: { keys: ['contracts', 'addresses', 'from', 'to', 'min_value', 'confirmations'] },
  nft_transfer: { keys: ['contracts', 'addresses', 'from', 'to', 'token_ids', 'confirmations'] },
  mined_transaction: { keys: ['tx_hashes', 'confirmations'], needsOneOf: ['tx_hashes'] },
  log: { keys: ['addresses', 'topics', 'confirmations'] },
  internal_transfer: { keys: ['addresses', 'from', 'to', 'min_value', 'confirmations'] },
  new_block: { keys: ['confirmations'] },
  // A mempool without a filter is every transaction of the chain: one of these is required.
  pending_transaction: {
    keys: ['addresses', 'from', 'to', 'function_selectors', 'min_value'],
    needsOneOf: ['addresses', 'from', 'to'],
  },
};

/** Whether a webhook of `type` takes `config.addresses` (and so `/v1/webhooks/{id}/addresses`). */
export function takesAddresses(type: WebhookEventType): boolean {
  return keysByType[type].keys.includes('addresses');
}

export const allConfigKeys: readonly ConfigKey[] = [
  'addresses',
  'contracts',
  'from',
  'to',
  'min_value',
  'token_ids',
  'tx_hashes',
  'topics',
  'function_selectors',
  'confirmations',
];

/**
 * Entries per list at most: one webhook watches up to this many contracts, senders, hashes or ids;
 * `addresses` takes up to `maxWebhookAddresses` (100,000), kept in their own table (webhook-addresses.ts).
 */
export const maxListEntries = 10_000;
export const maxConfirmations = 1_000;

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const hash32Pattern = /^0x[0-9a-fA-F]{64}$/;
const selectorPattern = /^0x[0-9a-fA-F]{8}$/;
const uintPattern = /^(0x[0-9a-fA-F]{1,64}|[0-9]{1,78})$/;
const maxUint256 = (1n << 256n) - 1n;

/**
 * Checks `input` against the event type's keys and returns it normalized; a bad key or value throws a
 * 400 naming it (`config.addresses[2]`).
 */
export function parseWebhookConfig(type: WebhookEventType, input: unknown): WebhookConfig {
  const raw = input ?? {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalidRequest('config', 'must be an object');
  const allowed = keysByType[type];
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const name = `config.${key}`;
    if (!(allConfigKeys as readonly string[]).includes(key)) {
      throw invalidRequest(name, `unknown key; ${type} takes ${allowed.keys.join(', ')}`);
    }
    if (!allowed.keys.includes(key as ConfigKey)) {
      throw invalidRequest(name, `does not apply to ${type}, which takes ${allowed.keys.join(', ')}`);
    }
    if (value === undefined) continue;
    config[key] = parseValue(key as ConfigKey, value, name);
  }
  if (allowed.needsOneOf && !allowed.needsOneOf.some((key) => (config[key] as unknown[] | undefined)?.length)) {
    const names = allowed.needsOneOf.map((key) => `config.${key}`);
    throw invalidRequest(names.join(' or '), `${type} needs at least one entry in ${names.join(' or ')}`);
  }
  return config as WebhookConfig;
}

function parseValue(key: ConfigKey, value: unknown, name: string): unknown {
  switch (key) {
    case 'addresses':
      return list(value, name, parseAddress, maxWebhookAddresses);
    case 'contracts':
    case 'from':
    case 'to':
      return list(value, name, parseAddress);
    case 'tx_hashes':
      return list(value, name, (item, at) =>
        pattern(item, at, hash32Pattern, 'a 0x transaction hash of 64 hex digits').toLowerCase(),
      );
    case 'function_selectors':
      return list(value, name, (item, at) =>
        pattern(item, at, selectorPattern, 'a 0x function selector of 8 hex digits').toLowerCase(),
      );
    case 'token_ids':
      return list(value, name, (item, at) => uint(item, at));
    case 'min_value':
      return uint(value, name);
    case 'topics':
      return topics(value, name);
    case 'confirmations':
      if (value === 'finalized') return value;
      if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > maxConfirmations) {
        throw invalidRequest(name, `must be an integer from 0 to ${maxConfirmations}, or "finalized"`);
      }
      return value;
  }
}

/** A 0x address (checksummed when mixed-case), lower-cased; a bad one is a 400 naming `name`. */
export function parseAddress(value: unknown, name: string): string {
  const address = pattern(value, name, addressPattern, 'a 0x address of 40 hex digits');
  assertAddressChecksum(name, address);
  return address.toLowerCase();
}

function list(value: unknown, name: string, item: (value: unknown, name: string) => string, max = maxListEntries): string[] {
  // `from: "0x…"` is read as a list of one.
  const items = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(items)) throw invalidRequest(name, 'must be a list');
  if (items.length > max) throw invalidRequest(name, `has ${items.length} entries; at most ${max}`);
  return [...new Set(items.map((entry, index) => item(entry, `${name}[${index}]`)))];
}

function pattern(value: unknown, name: string, regex: RegExp, what: string): string {
  if (typeof value !== 'string' || !regex.test(value)) throw invalidRequest(name, `must be ${what}`);
  return value;
}

function uint(value: unknown, name: string): string {
  const text = typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? String(value) : value;
  if (typeof text !== 'string' || !uintPattern.test(text)) {
    throw invalidRequest(name, 'must be a non-negative integer, as a decimal string or 0x hex');
  }
  const parsed = BigInt(text);
  if (parsed > maxUint256) throw invalidRequest(name, 'is larger than a uint256');
  return parsed.toString();
}

function topics(value: unknown, name: string): (string | string[] | null)[] {
  if (!Array.isArray(value)) throw invalidRequest(name, 'must be a list of up to 4 positions');
  if (value.length > 4) throw invalidRequest(name, 'has more than 4 positions');
  const topic = (item: unknown, at: string) =>
    pattern(item, at, hash32Pattern, 'null, a 32-byte 0x topic, or a list of them').toLowerCase();
  return value.map((position, index) => {
    const at = `${name}[${index}]`;
    if (position === null) return null;
    if (Array.isArray(position)) return list(position, at, topic);
    return topic(position, at);
  });
}
