import { createFeedItem, type FeedItem } from './subscription-frame.ts';

/**
 * Alchemy's `alchemy_minedTransactions` subscription: each transaction of each new canonical block
 * whose sender or recipient the filter names, as `{removed, transaction}` (the transaction as
 * eth_getTransactionByHash gives it, or only its hash); with `includeRemoved`, a transaction of a
 * block a reorg dropped is sent again with `removed: true`.
 */
export interface MinedTransactionsFilter {
  /** Each entry matches a transaction from `from` (when given) to `to` (when given); any entry will do. Empty: every transaction. */
  readonly addresses: readonly { readonly from?: string; readonly to?: string }[];
  readonly includeRemoved: boolean;
  readonly hashesOnly: boolean;
}

export interface TransactionLike {
  hash: string;
  from?: unknown;
  to?: unknown;
  [field: string]: unknown;
}

/** Alchemy's limit: the addresses named in all entries together. */
export const maxMinedTransactionAddresses = 1_000;

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const optionNames = new Set(['addresses', 'includeRemoved', 'hashesOnly']);

/** Parses the second `eth_subscribe` parameter; throws a TypeError whose message is the client's -32602 message. */
export function parseMinedTransactionsFilter(value: unknown): MinedTransactionsFilter {
  if (value === undefined || value === null) return { addresses: [], includeRemoved: false, hashesOnly: false };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError('the alchemy_minedTransactions options must be an object {addresses?, includeRemoved?, hashesOnly?}');
  }
  const options = value as Record<string, unknown>;
  const unknown = Object.keys(options).find((name) => !optionNames.has(name));
  if (unknown !== undefined) {
    throw new TypeError(
      `unknown alchemy_minedTransactions option '${unknown}': expected addresses, includeRemoved and hashesOnly`,
    );
  }
  return {
    addresses: parseAddressEntries(options.addresses),
    includeRemoved: parseFlag(options.includeRemoved, 'includeRemoved'),
    hashesOnly: parseFlag(options.hashesOnly, 'hashesOnly'),
  };
}

function parseFlag(value: unknown, name: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean')
    throw new TypeError(`invalid alchemy_minedTransactions option '${name}': must be true or false`);
  return value;
}

function parseAddressEntries(value: unknown): MinedTransactionsFilter['addresses'] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value))
    throw new TypeError("invalid alchemy_minedTransactions option 'addresses': must be an array of {from?, to?}");
  let named = 0;
  const entries = value.map((entry: unknown, index) => {
    const where = `addresses[${index}]`;
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new TypeError(`invalid alchemy_minedTransactions option '${where}': must be an object {from?, to?}`);
    }
    const { from, to, ...rest } = entry as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined)
      throw new TypeError(`unknown alchemy_minedTransactions option '${where}.${extra}': expected from and to`);
    const parsed: { from?: string; to?: string } = {};
    if (isPresent(from)) parsed.from = checkedAddress(from, `${where}.from`);
    if (isPresent(to)) parsed.to = checkedAddress(to, `${where}.to`);
    const count = Object.keys(parsed).length;
    if (count === 0) throw new TypeError(`invalid alchemy_minedTransactions option '${where}': name a from or a to address`);
    named += count;
    return parsed;
  });
  if (named > maxMinedTransactionAddresses) {
    throw new TypeError(
      `invalid alchemy_minedTransactions option 'addresses': ${named} addresses, more than the ${maxMinedTransactionAddresses} allowed`,
    );
  }
  return entries;
}

const isPresent = (value: unknown): boolean => value !== undefined && value !== null;

function checkedAddress(value: unknown, name: string): string {
  if (typeof value !== 'string' || !addressPattern.test(value)) {
    throw new TypeError(
      `invalid alchemy_minedTransactions option '${name}': ${JSON.stringify(value)} is not a 20-byte hex address`,
    );
  }
  return value.toLowerCase();
}

export function matchesMinedTransaction(filter: MinedTransactionsFilter, transaction: TransactionLike): boolean {
  if (filter.addresses.length === 0) return true;
  const from = typeof transaction.from === 'string' ? transaction.from.toLowerCase() : undefined;
  const to = typeof transaction.to === 'string' ? transaction.to.toLowerCase() : undefined;
  return filter.addresses.some(
    (entry) => (entry.from === undefined || entry.from === from) && (entry.to === undefined || entry.to === to),
  );
}

export type MinedSubscriber = { readonly filter: MinedTransactionsFilter; readonly deliver: (item: FeedItem) => boolean };

/**
 * One block's transactions to the subscribers whose filter takes them, each item serialized once per
 * form (whole or hash only) however many subscribers get it; returns how many items were written.
 */
export function deliverMinedTransactions(
  subscribers: Iterable<MinedSubscriber>,
  transactions: readonly TransactionLike[],
  removed: boolean,
): number {
  let sent = 0;
  for (const transaction of transactions) {
    // Serialized on first need, once per form.
    const items: { whole?: FeedItem; hash?: FeedItem } = {};
    for (const { filter, deliver } of subscribers) {
      if (removed && !filter.includeRemoved) continue;
      if (!matchesMinedTransaction(filter, transaction)) continue;
      const form = filter.hashesOnly ? 'hash' : 'whole';
      items[form] ??= createFeedItem(
        JSON.stringify({ removed, transaction: form === 'hash' ? { hash: transaction.hash } : transaction }),
      );
      if (deliver(items[form])) sent++;
    }
  }
  return sent;
}

/** A block read with its transactions as objects (eth_getBlockByHash with `true`): its transactions, else undefined. */
export function fullTransactionsOf(block: unknown, hash: string): TransactionLike[] | undefined {
  const { hash: blockHash, transactions } = (block ?? {}) as { hash?: unknown; transactions?: unknown };
  if (blockHash !== hash || !Array.isArray(transactions)) return undefined;
  return transactions.every((tx) => typeof (tx as TransactionLike | null)?.hash === 'string')
    ? (transactions as TransactionLike[])
    : undefined;
}
