import { type LogFilter, parseLogFilter } from './log-filter.ts';
import { type MinedTransactionsFilter, parseMinedTransactionsFilter } from './mined-transactions.ts';
import { type PendingTransactionsFilter, parsePendingTransactionsFilter } from './pending-transactions.ts';

export const subscriptionKinds = [
  'newHeads',
  'logs',
  'newPendingTransactions',
  'syncing',
  'alchemy_minedTransactions',
  'alchemy_pendingTransactions',
] as const;
export type SubscriptionKind = (typeof subscriptionKinds)[number];

/** What a client asked `eth_subscribe` for. */
export type SubscriptionRequest =
  | { kind: 'newHeads' }
  | { kind: 'logs'; filter: LogFilter }
  | { kind: 'newPendingTransactions' }
  | { kind: 'syncing' }
  | { kind: 'alchemy_minedTransactions'; filter: MinedTransactionsFilter }
  | { kind: 'alchemy_pendingTransactions'; filter: PendingTransactionsFilter };

/** Parses `eth_subscribe` params; throws a TypeError whose message is the client's -32602 message. */
export function parseSubscriptionRequest(params: unknown): SubscriptionRequest {
  if (!Array.isArray(params) || params.length === 0) {
    throw new TypeError(`eth_subscribe expects params [kind, options?] with kind one of ${subscriptionKinds.join(', ')}`);
  }
  const [kind, options, ...extra] = params as unknown[];
  if (typeof kind !== 'string' || !(subscriptionKinds as readonly string[]).includes(kind)) {
    throw new TypeError(`unknown subscription kind ${JSON.stringify(kind)}: expected one of ${subscriptionKinds.join(', ')}`);
  }
  if (extra.length > 0) throw new TypeError(`eth_subscribe takes at most 2 params, got ${params.length}`);
  switch (kind as SubscriptionKind) {
    case 'logs':
      return { kind: 'logs', filter: parseLogFilter(options) };
    case 'newPendingTransactions':
      // Whole transactions as geth asks for them (`true`) or Nethermind and Besu do: every pending one, unfiltered.
      return wantsWholePending(options)
        ? { kind: 'alchemy_pendingTransactions', filter: { hashesOnly: false } }
        : { kind: 'newPendingTransactions' };
    case 'alchemy_minedTransactions':
      return { kind: 'alchemy_minedTransactions', filter: parseMinedTransactionsFilter(options) };
    case 'alchemy_pendingTransactions':
      return { kind: 'alchemy_pendingTransactions', filter: parsePendingTransactionsFilter(options) };
    default:
      if (options !== undefined) throw new TypeError(`the ${kind} subscription takes no options`);
      return { kind: kind as 'newHeads' | 'syncing' };
  }
}

/** newPendingTransactions' second parameter: `true` or `{includeTransactions: true}` for whole transactions; absent or false for hashes. */
export function wantsWholePending(options: unknown): boolean {
  if (options === undefined || options === null || typeof options === 'boolean') return options === true;
  if (typeof options === 'object' && !Array.isArray(options)) {
    const names = Object.keys(options);
    const include = (options as { includeTransactions?: unknown }).includeTransactions;
    if (names.every((name) => name === 'includeTransactions') && (include === undefined || typeof include === 'boolean')) {
      return include === true;
    }
  }
  throw new TypeError(
    'invalid newPendingTransactions option: expected true or false (whole transactions or hashes), or {includeTransactions: true|false}',
  );
}
