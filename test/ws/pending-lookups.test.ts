import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { UpstreamSocket } from '../../src/chains/upstream-socket.ts';
import { createWsMetrics } from '../../src/ws/metrics.ts';
import type { PendingSubscriber } from '../../src/ws/pending-transactions.ts';
import { maxQueuedLookups, onWholePending, type PendingFeed, pendingLookupsState } from '../../src/ws/pending-upstream.ts';
import type { FeedItem } from '../../src/ws/subscription-frame.ts';

/** A node that sends only hashes, whose eth_getTransactionByHash answers when the test says. */
function feedOverHeldNode() {
  const asked: { hash: string; answer(transaction: unknown): void }[] = [];
  const socket: UpstreamSocket = {
    request: (method, params) => {
      expect(method).toBe('eth_getTransactionByHash');
      return new Promise((resolve) => asked.push({ hash: String(params[0]), answer: resolve }));
    },
    isOpen: () => true,
    reconnect: () => {},
    close: async () => {},
  };
  const registry = new Registry();
  const delivered: string[] = [];
  const subscriber: PendingSubscriber = {
    filter: { hashesOnly: false },
    deliver: (item: FeedItem) => delivered.push(item.tail.toString()) > 0,
  };
  const feed: PendingFeed = {
    chain: 'ethereum',
    network: 'mainnet',
    labels: { chain: 'ethereum', network: 'mainnet' },
    logger: pino({ level: 'silent' }),
    metrics: createWsMetrics(registry),
    socket,
    pending: new Set(),
    pendingFull: new Set([subscriber]),
    pendingSub: undefined,
    pendingFullSub: '0xfull',
    pendingQueue: Promise.resolve(),
    pendingFullForm: 2,
    lookups: pendingLookupsState(),
  };
  const outcomes = async () =>
    Object.fromEntries(
      (await registry.getSingleMetric('blockyard_ws_pending_lookups_total')!.get()).values.map((v) => [
        v.labels.outcome,
        v.value,
      ]),
    );
  return { feed, asked, delivered, outcomes };
}

const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('pending transactions looked up by hash', () => {
  it('asks 8 at once, keeps at most 1,000 waiting (the oldest dropped), delivers what the node still has', async () => {
    const { feed, asked, delivered, outcomes } = feedOverHeldNode();
    const sent: number[] = [];
    for (let n = 0; n < 8 + maxQueuedLookups + 5; n++) onWholePending(feed, hash(n), (count) => sent.push(count));
    expect(asked.map((a) => a.hash)).toEqual(Array.from({ length: 8 }, (_, n) => hash(n)));
    expect(feed.lookups.queue).toHaveLength(maxQueuedLookups);
    // Hashes 8 to 12 were the oldest waiting: dropped.
    expect(feed.lookups.queue[0]).toBe(hash(13));
    expect(await outcomes()).toEqual({ dropped: 5 });

    asked[0]!.answer({ hash: hash(0), from: '0x01', to: '0x02' });
    asked[1]!.answer(null);
    await settle();
    expect(delivered).toEqual([`${JSON.stringify({ hash: hash(0), from: '0x01', to: '0x02' })}}}`]);
    expect(sent).toEqual([1]);
    expect(await outcomes()).toEqual({ dropped: 5, found: 1, gone: 1 });
    // Each answer frees a place for the next waiting hash, the oldest first.
    expect(asked.slice(8).map((a) => a.hash)).toEqual([hash(13), hash(14)]);
    expect(feed.lookups.running).toBe(8);
  });

  it('sends the transactions in the order the node sent their hashes, whatever order the lookups answer in', async () => {
    const { feed, asked, delivered } = feedOverHeldNode();
    for (const n of [1, 2, 3]) onWholePending(feed, hash(n), () => {});
    asked[2]!.answer({ hash: hash(3) });
    asked[1]!.answer({ hash: hash(2) });
    await settle();
    expect(delivered).toEqual([]);
    asked[0]!.answer({ hash: hash(1) });
    await settle();
    expect(delivered.map((item) => JSON.parse(item.slice(0, -2)).hash)).toEqual([hash(1), hash(2), hash(3)]);
  });

  it('delivers nothing once the subscription is released while a lookup was under way', async () => {
    const { feed, asked, delivered } = feedOverHeldNode();
    onWholePending(feed, hash(1), () => {});
    feed.pendingFullSub = undefined;
    asked[0]!.answer({ hash: hash(1) });
    await settle();
    expect(delivered).toEqual([]);
    expect(feed.lookups.running).toBe(0);
  });
});
