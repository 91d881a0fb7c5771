import type { TransactionLike } from './mined-transactions.ts';
import { createFeedItem, type FeedItem } from './subscription-frame.ts';

/**
 * Alchemy's `alchemy_pendingTransactions` subscription: each transaction the node adds to its pending
 * pool that is sent from a `fromAddress` or to a `toAddress` (either will do; neither given: every
 * one), as the transaction object or, with `hashesOnly`, its hash.
 */
export interface PendingTransactionsFilter {
  /** Lower-case; undefined = not filtered on this side. */
  readonly from?: ReadonlySet<string>;
  readonly to?: ReadonlySet<string>;
  readonly hashesOnly: boolean;
}

export type PendingSubscriber = { readonly filter: PendingTransactionsFilter; readonly deliver: (item: FeedItem) => boolean };

/** Alchemy's limit: the distinct addresses of both lists together. */
export const maxPendingTransactionAddresses = 1_000;

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const optionNames = new Set(['fromAddress', 'toAddress', 'hashesOnly']);

/** Parses the second `eth_subscribe` parameter; throws a TypeError whose message is the client's -32602 message. */
export function parsePendingTransactionsFilter(value: unknown): PendingTransactionsFilter {
  if (value === undefined || value === null) return { hashesOnly: false };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError('the alchemy_pendingTransactions options must be an object {fromAddress?, toAddress?, hashesOnly?}');
  }
  const options = value as Record<string, unknown>;
  const unknown = Object.keys(options).find((name) => !optionNames.has(name));
  if (unknown !== undefined) {
    throw new TypeError(
      `unknown alchemy_pendingTransactions option '${unknown}': expected fromAddress, toAddress and hashesOnly`,
    );
  }
  const from = addressSet(options.fromAddress, 'fromAddress');
  const to = addressSet(options.toAddress, 'toAddress');
  const distinct = new Set([...(from ?? []), ...(to ?? [])]).size;
  if (distinct > maxPendingTransactionAddresses) {
    throw new TypeError(
      `invalid alchemy_pendingTransactions options: ${distinct} distinct addresses, more than the ${maxPendingTransactionAddresses} allowed`,
    );
  }
  const { hashesOnly } = options;
  if (hashesOnly !== undefined && hashesOnly !== null && typeof hashesOnly !== 'boolean') {
    throw new TypeError("invalid alchemy_pendingTransactions option 'hashesOnly': must be true or false");
  }
  return { ...(from ? { from } : {}), ...(to ? { to } : {}), hashesOnly: hashesOnly === true };
}

function addressSet(value: unknown, name: string): ReadonlySet<string> | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) return undefined;
  list.forEach((item: unknown, index) => {
    if (typeof item !== 'string' || !addressPattern.test(item)) {
      const where = Array.isArray(value) ? `${name}[${index}]` : name;
      throw new TypeError(
        `invalid alchemy_pendingTransactions option '${where}': ${JSON.stringify(item)} is not a 20-byte hex address`,
      );
    }
  });
  return new Set(list.map((item: string) => item.toLowerCase()));
}

export function matchesPendingTransaction(filter: PendingTransactionsFilter, transaction: TransactionLike): boolean {
  if (filter.from === undefined && filter.to === undefined) return true;
  const from = typeof transaction.from === 'string' ? transaction.from.toLowerCase() : undefined;
  const to = typeof transaction.to === 'string' ? transaction.to.toLowerCase() : undefined;
  return (from !== undefined && filter.from?.has(from) === true) || (to !== undefined && filter.to?.has(to) === true);
}

/** One pending transaction (as the node's full `newPendingTransactions` sends it) to the subscribers that take it; returns how many items were written. */
export function deliverPendingTransaction(subscribers: Iterable<PendingSubscriber>, transaction: unknown): number {
  if (typeof (transaction as TransactionLike | null)?.hash !== 'string') return 0;
  const tx = transaction as TransactionLike;
  const items: { whole?: FeedItem; hash?: FeedItem } = {};
  let sent = 0;
  for (const { filter, deliver } of subscribers) {
    if (!matchesPendingTransaction(filter, tx)) continue;
    const form = filter.hashesOnly ? 'hash' : 'whole';
    items[form] ??= createFeedItem(JSON.stringify(form === 'hash' ? tx.hash : tx));
    if (deliver(items[form])) sent++;
  }
  return sent;
}
