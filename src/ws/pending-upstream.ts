import type { Logger } from 'pino';
import { UpstreamRpcError, type UpstreamSocket } from '../chains/upstream-socket.ts';
import type { WsMetrics } from './metrics.ts';
import { deliverPendingTransaction, type PendingSubscriber } from './pending-transactions.ts';
import type { Deliver } from './subscription-frame.ts';

/**
 * Nodes serve whole pending transactions in different forms, and some not at all: geth >= 1.11, reth
 * and anvil take `true`, Nethermind and Besu `{includeTransactions: true}`, and a node (or a provider's
 * gateway) that refuses both still sends hashes, each then looked up with eth_getTransactionByHash.
 * Tried in this order on each connection; the first the node accepts is kept until it reconnects.
 */
export const wholePendingForms = [
  { name: 'boolean', params: ['newPendingTransactions', true] },
  { name: 'includeTransactions', params: ['newPendingTransactions', { includeTransactions: true }] },
  { name: 'hashes looked up', params: ['newPendingTransactions'] },
] as const;

/** Hashes waiting for their lookup; past this the oldest are dropped (a busy chain's pool outruns the node's answers). */
export const maxQueuedLookups = 1_000;
const lookupsAtOnce = 8;

/** The parts of a network's feed the pending subscriptions use. */
export interface PendingFeed {
  readonly chain: string;
  readonly network: string;
  readonly labels: { chain: string; network: string };
  readonly logger: Logger;
  readonly metrics: WsMetrics;
  readonly socket: UpstreamSocket;
  /** newPendingTransactions subscribers (hashes). */
  readonly pending: Set<Deliver>;
  /** alchemy_pendingTransactions subscribers (whole transactions, filtered). */
  readonly pendingFull: Set<PendingSubscriber>;
  pendingSub: string | undefined;
  pendingFullSub: string | undefined;
  pendingQueue: Promise<void>;
  /** The form of `pendingFullSub` (an index in `wholePendingForms`), learned on this connection. */
  pendingFullForm: number | undefined;
  /** Hashes waiting, lookups under way, and the tail of their deliveries (made in the order the node sent the hashes). */
  readonly lookups: { queue: string[]; running: number; delivered: Promise<void> };
}

const upstreamKinds = { pendingSub: 'newPendingTransactions', pendingFullSub: 'newPendingTransactionsFull' } as const;

export function pendingLookupsState(): PendingFeed['lookups'] {
  return { queue: [], running: 0, delivered: Promise.resolve() };
}

/** After a (re)connect: no subscription is held on the new connection yet, and its node may take another form. */
export function forgetPendingSubscriptions(feed: PendingFeed): void {
  feed.pendingSub = undefined;
  feed.pendingFullSub = undefined;
  feed.pendingFullForm = undefined;
  feed.lookups.queue.length = 0;
  clearPendingGauges(feed);
}

export function clearPendingGauges(feed: Pick<PendingFeed, 'metrics' | 'labels'>): void {
  for (const kind of Object.values(upstreamKinds)) feed.metrics.upstreamSubscriptions.set({ ...feed.labels, kind }, 0);
}

/** A pending-transaction subscriber, with the node's subscription it needs held while any such subscriber is. */
export function pendingMember<T>(feed: PendingFeed, set: Set<T>, member: T): () => void {
  set.add(member);
  syncPendingSubscriptions(feed).catch(() => {});
  return () => {
    set.delete(member);
    syncPendingSubscriptions(feed).catch(() => {});
  };
}

/** Holds each of the node's two pending subscriptions while a client wants it, releases it after the last leaves. */
export function syncPendingSubscriptions(feed: PendingFeed): Promise<void> {
  feed.pendingQueue = feed.pendingQueue
    .catch(() => {})
    .then(async () => {
      // Not connected yet (the first client of a feed) or reconnecting: onOpen subscribes once it is.
      if (!feed.socket.isOpen()) return;
      for (const field of ['pendingSub', 'pendingFullSub'] as const) {
        await syncOne(feed, field).catch((error: unknown) =>
          feed.logger.warn({ err: error, chain: feed.chain, network: feed.network }, 'pending subscription not changed'),
        );
      }
    });
  return feed.pendingQueue;
}

async function syncOne(feed: PendingFeed, field: keyof typeof upstreamKinds): Promise<void> {
  const { socket, metrics, labels } = feed;
  const wanted = field === 'pendingSub' ? feed.pending.size > 0 : feed.pendingFull.size > 0;
  const kind = upstreamKinds[field];
  if (wanted && feed[field] === undefined) {
    feed[field] =
      field === 'pendingSub'
        ? String(await socket.request('eth_subscribe', ['newPendingTransactions']))
        : await subscribeWhole(feed);
    metrics.upstreamSubscriptions.set({ ...labels, kind }, 1);
  } else if (!wanted && feed[field] !== undefined) {
    const id = feed[field];
    feed[field] = undefined;
    if (field === 'pendingFullSub') feed.lookups.queue.length = 0;
    metrics.upstreamSubscriptions.set({ ...labels, kind }, 0);
    await socket.request('eth_unsubscribe', [id]);
  }
}

/** The first whole-transaction form the node accepts (a refusal moves on; a lost connection does not). */
async function subscribeWhole(feed: PendingFeed): Promise<string> {
  for (let form = feed.pendingFullForm ?? 0; form < wholePendingForms.length; form++) {
    try {
      const id = String(await feed.socket.request('eth_subscribe', [...wholePendingForms[form]!.params]));
      if (feed.pendingFullForm !== form) {
        feed.pendingFullForm = form;
        const { chain, network } = feed;
        feed.logger.info({ chain, network, form: wholePendingForms[form]!.name }, 'whole pending transactions subscribed');
      }
      return id;
    } catch (error) {
      if (!(error instanceof UpstreamRpcError) || form === wholePendingForms.length - 1) throw error;
    }
  }
  throw new Error('unreachable: the last form rethrows');
}

/** A notification of the whole-transaction subscription: a transaction, or (hash form, or a node ignoring the flag) a hash to look up. */
export function onWholePending(feed: PendingFeed, result: unknown, sent: (count: number) => void): void {
  if (typeof result !== 'string') {
    sent(deliverPendingTransaction(feed.pendingFull, result));
    return;
  }
  const { queue } = feed.lookups;
  queue.push(result);
  if (queue.length > maxQueuedLookups) {
    const dropped = queue.splice(0, queue.length - maxQueuedLookups).length;
    feed.metrics.pendingLookups.inc({ ...feed.labels, outcome: 'dropped' }, dropped);
  }
  drainLookups(feed, sent);
}

/** Looks up to 8 hashes at once; each answer goes out after the answers of the hashes before it. */
function drainLookups(feed: PendingFeed, sent: (count: number) => void): void {
  const { lookups, socket, metrics, labels } = feed;
  while (lookups.running < lookupsAtOnce && lookups.queue.length > 0) {
    const hash = lookups.queue.shift()!;
    lookups.running++;
    // Settled either way at once (a rejection left waiting for its turn would count as unhandled).
    const answer = socket
      .request('eth_getTransactionByHash', [hash])
      .then(
        (transaction) => ({ transaction }),
        () => undefined,
      )
      .finally(() => {
        lookups.running--;
        drainLookups(feed, sent);
      });
    lookups.delivered = lookups.delivered
      .then(() => answer)
      .then((looked) => {
        // Null: it left the pool (mined or replaced) before the lookup, or this node never had it.
        const outcome = looked === undefined ? 'failed' : looked.transaction ? 'found' : 'gone';
        metrics.pendingLookups.inc({ ...labels, outcome });
        if (looked?.transaction && feed.pendingFullSub !== undefined) {
          sent(deliverPendingTransaction(feed.pendingFull, looked.transaction));
        }
      })
      .catch((error: unknown) =>
        feed.logger.warn({ err: error, chain: feed.chain, network: feed.network }, 'pending transaction not sent'),
      );
  }
}
