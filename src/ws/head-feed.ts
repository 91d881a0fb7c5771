import type { Logger } from 'pino';
import { createUpstreamSocket, type UpstreamSocketOptions } from '../chains/upstream-socket.ts';
import { createChainWindow, type Header } from './chain-window.ts';
import { type LogFilter, type LogLike, matchesLogFilter } from './log-filter.ts';
import type { WsMetrics } from './metrics.ts';
import { createFeedItem, type FeedItem } from './subscription-frame.ts';
import type { SubscriptionRequest } from './subscription-request.ts';

/**
 * Sends one item (serialized once, shared by every subscriber) to one subscriber; true when it was
 * written, false when the connection is closing or was just closed as a slow consumer.
 */
export type Deliver = (item: FeedItem) => boolean;

/** One network's subscriptions, served to every client from one upstream connection. */
export interface HeadFeed {
  /** Starts delivering items of the request's kind; returns the function that stops it. */
  subscribe(request: SubscriptionRequest, deliver: Deliver): () => void;
  close(): Promise<void>;
}

export interface HeadFeedOptions {
  /** Upstream WebSocket URLs, best first (a pool's ranking, asked again at every reconnect). */
  urls: () => readonly string[];
  chain: string;
  network: string;
  logger: Logger;
  metrics: WsMetrics;
  /** Reorgs up to this many blocks deep are replayed as removed logs. */
  reorgDepth?: number;
  /**
   * A connection that answers pings but stops announcing heads while the other upstreams move on is
   * left for another: checked every `checkMs`, twice more than `maxBlocks` behind `bestHead()`.
   */
  lag?: { bestHead: () => number; maxBlocks: number; checkMs: number };
  socket?: Pick<UpstreamSocketOptions, 'backoff' | 'pingIntervalMs' | 'requestTimeoutMs'>;
}

type Log = LogLike & Record<string, unknown>;

/** Block fields a newHeads item does not carry (eth_getBlockByHash adds them). */
const bodyFields = ['transactions', 'uncles', 'size', 'totalDifficulty', 'withdrawals'];
const logFetchDelaysMs = [250, 500, 1_000, 2_000];

/**
 * Subscribes upstream to newHeads (and newPendingTransactions while a client wants them) and fans
 * the items out. Logs are fetched once per new block by hash and filtered per subscription; a reorg
 * re-sends the dropped blocks' logs with `removed: true`. After a reconnect the latest block's
 * missed parents are fetched, so clients see every head once, in order.
 */
export function createHeadFeed(options: HeadFeedOptions): HeadFeed {
  const { chain, network, logger, metrics } = options;
  const labels = { chain, network };
  const window = createChainWindow(options.reorgDepth ?? 128);
  const heads = new Set<Deliver>();
  const logs = new Set<{ filter: LogFilter; deliver: Deliver }>();
  const pending = new Set<Deliver>();
  const syncing = new Set<Deliver>();
  let headsSub: string | undefined;
  let pendingSub: string | undefined;
  let headQueue = Promise.resolve();
  let pendingQueue = Promise.resolve();
  let lastSyncing: string | undefined;

  const socket = createUpstreamSocket({
    ...options.socket,
    urls: options.urls,
    logger,
    async onOpen(reconnected) {
      if (reconnected) metrics.upstreamReconnects.inc(labels);
      headsSub = undefined;
      pendingSub = undefined;
      metrics.upstreamSubscriptions.set({ ...labels, kind: 'newPendingTransactions' }, 0);
      headsSub = String(await socket.request('eth_subscribe', ['newHeads']));
      metrics.upstreamSubscriptions.set({ ...labels, kind: 'newHeads' }, 1);
      await syncPendingSubscription();
      if (window.tip) enqueueHead(await socket.request('eth_getBlockByNumber', ['latest', false]));
    },
    onNotification(subscription, result) {
      if (subscription === headsSub) enqueueHead(result);
      else if (subscription === pendingSub) deliverAll(pending, createFeedItem(JSON.stringify(result)));
    },
  });

  const { lag } = options;
  let checksBehind = 0;
  const lagTimer = lag
    ? setInterval(() => {
        const tip = window.tip;
        if (!tip) return;
        const behind = lag.bestHead() - Number(tip.header.number);
        checksBehind = behind > lag.maxBlocks ? checksBehind + 1 : 0;
        if (checksBehind < 2) return;
        checksBehind = 0;
        metrics.upstreamLagSwitches.inc(labels);
        socket.reconnect(`no new head for ${behind} blocks while other upstreams moved on`);
      }, lag.checkMs).unref()
    : undefined;

  function syncPendingSubscription(): Promise<void> {
    pendingQueue = pendingQueue
      .catch(() => {})
      .then(async () => {
        // Not connected yet (the first client of a feed) or reconnecting: onOpen subscribes once it is.
        if (!socket.isOpen()) return;
        if (pending.size > 0 && pendingSub === undefined) {
          pendingSub = String(await socket.request('eth_subscribe', ['newPendingTransactions']));
          metrics.upstreamSubscriptions.set({ ...labels, kind: 'newPendingTransactions' }, 1);
        } else if (pending.size === 0 && pendingSub !== undefined) {
          const id = pendingSub;
          pendingSub = undefined;
          metrics.upstreamSubscriptions.set({ ...labels, kind: 'newPendingTransactions' }, 0);
          await socket.request('eth_unsubscribe', [id]);
        }
      });
    return pendingQueue;
  }

  function enqueueHead(raw: unknown) {
    if (!isHeader(raw)) return;
    headQueue = headQueue
      .then(() => processHead(toHeader(raw)))
      .catch((error: unknown) => logger.warn({ err: error, chain, network }, 'new head not processed'));
  }

  async function processHead(head: Header) {
    const change = await window.advance(head, async (hash) => {
      const block = await socket.request('eth_getBlockByHash', [hash, false]);
      return isHeader(block) ? toHeader(block) : undefined;
    });
    if (logs.size > 0) for (const block of change.dropped) if (block.logs) deliverLogs(block.logs as Log[], true);
    for (const block of change.added) {
      deliverAll(heads, createFeedItem(JSON.stringify(block.header)));
      if (logs.size > 0) {
        block.logs = await fetchLogs(block.header.hash);
        deliverLogs(block.logs as Log[], false);
      }
    }
    if (syncing.size > 0) await checkSyncing();
  }

  async function fetchLogs(blockHash: string): Promise<Log[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return (await socket.request('eth_getLogs', [{ blockHash }])) as Log[];
      } catch (error) {
        const delay = logFetchDelaysMs[attempt];
        if (delay === undefined) {
          logger.warn({ err: error, chain, network, blockHash }, 'logs of a block could not be fetched; skipped');
          return [];
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  function deliverLogs(blockLogs: readonly Log[], removed: boolean) {
    for (const log of blockLogs) {
      let item: FeedItem | undefined;
      let sent = 0;
      for (const { filter, deliver } of logs) {
        if (!matchesLogFilter(filter, log)) continue;
        item ??= createFeedItem(JSON.stringify(removed ? { ...log, removed: true } : log));
        if (deliver(item)) sent++;
      }
      if (sent > 0) metrics.messagesOut.inc(sent);
    }
  }

  async function checkSyncing() {
    const json = JSON.stringify(await socket.request('eth_syncing', []));
    if (lastSyncing !== undefined && json !== lastSyncing) deliverAll(syncing, createFeedItem(json));
    lastSyncing = json;
  }

  /** One item to every subscriber of a kind, in subscription order, counted once. */
  function deliverAll(delivers: Iterable<Deliver>, item: FeedItem) {
    let sent = 0;
    for (const deliver of delivers) if (deliver(item)) sent++;
    if (sent > 0) metrics.messagesOut.inc(sent);
  }

  return {
    subscribe(request, deliver) {
      switch (request.kind) {
        case 'newHeads':
          return setMember(heads, deliver);
        case 'syncing':
          return setMember(syncing, deliver);
        case 'logs':
          return setMember(logs, { filter: request.filter, deliver });
        case 'newPendingTransactions': {
          const remove = setMember(pending, deliver);
          syncPendingSubscription().catch((error: unknown) => logger.warn({ err: error }, 'pending subscription not changed'));
          return () => {
            remove();
            syncPendingSubscription().catch(() => {});
          };
        }
      }
    },
    async close() {
      clearInterval(lagTimer);
      await socket.close();
      metrics.upstreamSubscriptions.set({ ...labels, kind: 'newHeads' }, 0);
      metrics.upstreamSubscriptions.set({ ...labels, kind: 'newPendingTransactions' }, 0);
    },
  };
}

function setMember<T>(set: Set<T>, member: T): () => void {
  set.add(member);
  return () => set.delete(member);
}

function isHeader(value: unknown): value is Header {
  const header = value as Header | null;
  return typeof header?.hash === 'string' && typeof header.number === 'string' && typeof header.parentHash === 'string';
}

function toHeader(block: Header): Header {
  const header = { ...block };
  for (const field of bodyFields) delete header[field];
  return header;
}
