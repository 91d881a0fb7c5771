import type { Logger } from 'pino';
import type { SocketIdentity } from '../chains/socket-identity.ts';
import { createUpstreamSocket, type UpstreamSocket, type UpstreamSocketOptions } from '../chains/upstream-socket.ts';
import { type BlockPartReader, fetchBlockLogs, fetchBlockTransactions } from './block-parts.ts';
import { type ChainWindow, createChainWindow, type Header, type WindowBlock } from './chain-window.ts';
import { type LogFilter, type LogLike, matchesLogFilter } from './log-filter.ts';
import type { WsMetrics } from './metrics.ts';
import { deliverMinedTransactions, type MinedSubscriber } from './mined-transactions.ts';
import type { PendingSubscriber } from './pending-transactions.ts';
import {
  clearPendingGauges,
  forgetPendingSubscriptions,
  onWholePending,
  type PendingFeed,
  pendingLookupsState,
  pendingMember,
  syncPendingSubscriptions,
} from './pending-upstream.ts';
import type { UpstreamHandlers } from './polled-upstream.ts';
import { createFeedItem, type Deliver, type FeedItem } from './subscription-frame.ts';
import type { SubscriptionRequest } from './subscription-request.ts';

/** One network's subscriptions, served to every client from one upstream connection. */
export interface HeadFeed {
  /** Starts delivering items of the request's kind; returns the function that stops it. */
  subscribe(request: SubscriptionRequest, deliver: Deliver): () => void;
  /**
   * Undefined once the feed follows the upstream's heads (its first newHeads subscription answered; on
   * a polled upstream, after its first read of `latest`): a subscriber added after that sees every
   * block that comes later. Before that, a promise that resolves then: a block could be mined meanwhile
   * that the feed never hears of.
   */
  followingHeads(): Promise<void> | undefined;
  /** How long the feed has had no subscriber (0 while it has one). */
  idleForMs(): number;
  close(): Promise<void>;
}

export interface HeadFeedOptions {
  /** Upstream WebSocket URLs, best first (a pool's ranking, asked again at every reconnect). */
  urls: () => readonly string[];
  /** What each upstream connection must report of itself (the pool's `socketIdentity()`). */
  identity?: SocketIdentity;
  /**
   * Reads a block or its logs elsewhere (the pool: a node that has it) when the connection cannot: after
   * a switch, the node now connected may lack a block the previous one announced. Rejects on an error answer.
   */
  fallbackRead?: (method: string, params: unknown[]) => Promise<unknown>;
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
  /** Another upstream than a WebSocket one (polled-upstream.ts, for a network listed with HTTP URLs only); `urls` is then unused. */
  createUpstream?: (handlers: UpstreamHandlers) => UpstreamSocket;
}

type Log = LogLike & Record<string, unknown>;

/** Block fields a newHeads item does not carry (eth_getBlockByHash adds them). */
const bodyFields = ['transactions', 'uncles', 'size', 'totalDifficulty', 'withdrawals'];
/** Blocks whose transactions stay in memory, for `removed` replays of mined transactions: reorgs deeper than this are not replayed. */
export const minedReplayDepth = 16;

/** One feed's subscribers, upstream subscriptions and queues, shared by the steps below. */
interface FeedState extends PendingFeed {
  chain: string;
  network: string;
  labels: { chain: string; network: string };
  logger: Logger;
  metrics: WsMetrics;
  window: ChainWindow;
  heads: Set<Deliver>;
  logs: Set<{ filter: LogFilter; deliver: Deliver }>;
  mined: Set<MinedSubscriber>;
  /** The blocks that hold their transactions now, oldest first (at most `minedReplayDepth`). */
  withTransactions: WindowBlock[];
  pending: Set<Deliver>;
  /** alchemy_pendingTransactions subscribers: served from the node's whole-transaction pending subscription. */
  pendingFull: Set<PendingSubscriber>;
  syncing: Set<Deliver>;
  socket: UpstreamSocket;
  headsSub: string | undefined;
  /** Called each time the upstream's newHeads subscription is answered. */
  onFollowing: () => void;
  headQueue: Promise<void>;
  lastSyncing: string | undefined;
  /** A parent the window misses, by hash (the window's `fetchByHash`). */
  fetchHeader(hash: string): Promise<Header | undefined>;
  /** A read of a block or logs: the connection first, then `fallbackRead` when it has no answer. */
  read(method: string, params: unknown[], usable: (result: unknown) => boolean): Promise<unknown>;
  /** The same reads, retried, for a block's logs and transactions (block-parts.ts). */
  parts: BlockPartReader;
}

/**
 * Subscribes upstream to newHeads (and newPendingTransactions while a client wants them) and fans
 * the items out. Logs are fetched once per new block by hash and filtered per subscription; a reorg
 * re-sends the dropped blocks' logs with `removed: true`. After a reconnect the latest block's
 * missed parents are fetched, so clients see every head once, in order.
 */
export function createHeadFeed(options: HeadFeedOptions): HeadFeed {
  const { chain, network, logger, metrics } = options;
  let markFollowing!: () => void;
  let follows = false;
  const following = new Promise<void>((resolve) => {
    markFollowing = () => {
      follows = true;
      resolve();
    };
  });
  const feed: FeedState = {
    chain,
    network,
    labels: { chain, network },
    logger,
    metrics,
    window: createChainWindow(options.reorgDepth ?? 128),
    heads: new Set(),
    logs: new Set(),
    mined: new Set(),
    withTransactions: [],
    pending: new Set(),
    pendingFull: new Set(),
    syncing: new Set(),
    socket: (options.createUpstream ?? webSocketUpstream(options))({
      onOpen: (reconnected) => resubscribe(feed, reconnected),
      onNotification: (subscription, result) => onNotification(feed, subscription, result),
    }),
    headsSub: undefined,
    onFollowing: () => markFollowing(),
    pendingSub: undefined,
    pendingFullSub: undefined,
    pendingFullForm: undefined,
    lookups: pendingLookupsState(),
    headQueue: Promise.resolve(),
    pendingQueue: Promise.resolve(),
    lastSyncing: undefined,
    fetchHeader: async (hash) => {
      const block = await feed.read('eth_getBlockByHash', [hash, false], isHeader);
      return isHeader(block) ? toHeader(block) : undefined;
    },
    read: (method, params, usable) => readWithFallback(feed.socket, options.fallbackRead, { method, params, usable }),
    parts: {
      read: (method, params, usable) => feed.read(method, params, usable),
      skipped: (error, what, blockHash) =>
        logger.warn({ err: error, chain, network, blockHash }, `${what} of a block could not be fetched; skipped`),
    },
  };
  const lagTimer = options.lag ? watchLag(feed, options.lag) : undefined;

  let members = 0;
  let idleSince = Date.now();
  return {
    subscribe(request, deliver) {
      const stop = subscribe(feed, request, deliver);
      members++;
      let stopped = false;
      return () => {
        if (stopped) return;
        stopped = true;
        stop();
        if (--members === 0) idleSince = Date.now();
      };
    },
    followingHeads: () => (follows ? undefined : following),
    idleForMs: () => (members > 0 ? 0 : Date.now() - idleSince),
    async close() {
      clearInterval(lagTimer);
      // Before the wait: a feed opened meanwhile for the same network sets its own gauges after it.
      metrics.upstreamSubscriptions.set({ ...feed.labels, kind: 'newHeads' }, 0);
      clearPendingGauges(feed);
      await feed.socket.close();
    },
  };
}

function webSocketUpstream(options: HeadFeedOptions): (handlers: UpstreamHandlers) => UpstreamSocket {
  const { urls, identity, logger } = options;
  return (handlers) => createUpstreamSocket({ ...options.socket, urls, identity, logger, ...handlers });
}

/** The connection's answer when usable, else the fallback's (when there is one), else the connection's failure. */
async function readWithFallback(
  socket: UpstreamSocket,
  fallback: HeadFeedOptions['fallbackRead'],
  read: { method: string; params: unknown[]; usable: (result: unknown) => boolean },
): Promise<unknown> {
  let failure: unknown;
  try {
    const result = await socket.request(read.method, read.params);
    if (read.usable(result) || !fallback) return result;
  } catch (error) {
    if (!fallback) throw error;
    failure = error;
  }
  try {
    return await fallback(read.method, read.params);
  } catch (error) {
    throw failure ?? error;
  }
}

/** On every (re)connect: the subscriptions again, and the heads missed while away. */
async function resubscribe(feed: FeedState, reconnected: boolean): Promise<void> {
  const { metrics, labels, socket } = feed;
  if (reconnected) metrics.upstreamReconnects.inc(labels);
  feed.headsSub = undefined;
  forgetPendingSubscriptions(feed);
  feed.headsSub = String(await socket.request('eth_subscribe', ['newHeads']));
  metrics.upstreamSubscriptions.set({ ...labels, kind: 'newHeads' }, 1);
  if (feed.window.tip) {
    await syncPendingSubscriptions(feed);
    enqueueHead(feed, await socket.request('eth_getBlockByNumber', ['latest', false]));
    return;
  }
  // The first time: the block the feed starts from, kept and not sent (it came before any subscriber
  // was answered), so that blocks between it and the first one announced (a polled node's next read
  // skips them) are fetched and sent.
  const start = await socket.request('eth_getBlockByNumber', ['latest', false]).catch(() => undefined);
  if (isHeader(start)) startWindowAt(feed, toHeader(start));
  feed.onFollowing();
  await syncPendingSubscriptions(feed);
}

function startWindowAt(feed: FeedState, header: Header): void {
  feed.headQueue = feed.headQueue
    .then(async () => {
      if (!feed.window.tip) await feed.window.advance(header, feed.fetchHeader);
    })
    .catch((error: unknown) =>
      feed.logger.warn({ err: error, chain: feed.chain, network: feed.network }, 'start block not kept'),
    );
}

function onNotification(feed: FeedState, subscription: string, result: unknown): void {
  if (subscription === feed.headsSub) enqueueHead(feed, result);
  else if (subscription === feed.pendingSub) deliverAll(feed, feed.pending, createFeedItem(JSON.stringify(result)));
  else if (subscription === feed.pendingFullSub) onWholePending(feed, result, (sent) => countSent(feed, sent));
}

/** Leaves a connection that stays `maxBlocks` behind the best head at two checks in a row. */
function watchLag(feed: FeedState, lag: NonNullable<HeadFeedOptions['lag']>): NodeJS.Timeout {
  let checksBehind = 0;
  return setInterval(() => {
    const tip = feed.window.tip;
    if (!tip) return;
    const behind = lag.bestHead() - Number(tip.header.number);
    checksBehind = behind > lag.maxBlocks ? checksBehind + 1 : 0;
    if (checksBehind < 2) return;
    checksBehind = 0;
    feed.metrics.upstreamLagSwitches.inc(feed.labels);
    feed.socket.reconnect(`no new head for ${behind} blocks while other upstreams moved on`);
  }, lag.checkMs).unref();
}

function subscribe(feed: FeedState, request: SubscriptionRequest, deliver: Deliver): () => void {
  switch (request.kind) {
    case 'newHeads':
      return setMember(feed.heads, deliver);
    case 'syncing':
      return setMember(feed.syncing, deliver);
    case 'logs':
      return setMember(feed.logs, { filter: request.filter, deliver });
    case 'alchemy_minedTransactions':
      return setMember(feed.mined, { filter: request.filter, deliver });
    case 'newPendingTransactions':
      return pendingMember(feed, feed.pending, deliver);
    case 'alchemy_pendingTransactions':
      return pendingMember(feed, feed.pendingFull, { filter: request.filter, deliver });
  }
}

function enqueueHead(feed: FeedState, raw: unknown): void {
  if (!isHeader(raw)) return;
  feed.headQueue = feed.headQueue
    .then(() => processHead(feed, toHeader(raw)))
    .catch((error: unknown) =>
      feed.logger.warn({ err: error, chain: feed.chain, network: feed.network }, 'new head not processed'),
    );
}

async function processHead(feed: FeedState, head: Header): Promise<void> {
  const { logs, mined } = feed;
  const change = await feed.window.advance(head, feed.fetchHeader);
  for (const block of change.dropped) {
    if (logs.size > 0 && block.logs) deliverLogs(feed, block.logs as Log[], true);
    if (mined.size > 0 && block.transactions) countSent(feed, deliverMinedTransactions(mined, block.transactions, true));
  }
  for (const block of change.added) {
    // Asked before the heads go out: the node reads the logs while this process writes the heads.
    const blockLogs = logs.size > 0 ? fetchBlockLogs(feed.parts, block.header) : undefined;
    const blockTransactions = mined.size > 0 ? fetchBlockTransactions(feed.parts, block.header) : undefined;
    deliverAll(feed, feed.heads, createFeedItem(JSON.stringify(block.header)));
    if (blockLogs) {
      block.logs = await blockLogs;
      deliverLogs(feed, block.logs as Log[], false);
    }
    if (blockTransactions) {
      block.transactions = await blockTransactions;
      countSent(feed, deliverMinedTransactions(mined, block.transactions, false));
      feed.withTransactions.push(block);
      // Whole blocks of transactions are large (megabytes on a mainnet): only the last few are kept.
      if (feed.withTransactions.length > minedReplayDepth) delete feed.withTransactions.shift()!.transactions;
    }
  }
  if (feed.syncing.size > 0) await checkSyncing(feed);
}

function deliverLogs(feed: FeedState, blockLogs: readonly Log[], removed: boolean): void {
  for (const log of blockLogs) {
    let item: FeedItem | undefined;
    let sent = 0;
    for (const { filter, deliver } of feed.logs) {
      if (!matchesLogFilter(filter, log)) continue;
      item ??= createFeedItem(JSON.stringify(removed ? { ...log, removed: true } : log));
      if (deliver(item)) sent++;
    }
    countSent(feed, sent);
  }
}

function countSent(feed: FeedState, sent: number): void {
  if (sent > 0) feed.metrics.messagesOut.inc(sent);
}

async function checkSyncing(feed: FeedState): Promise<void> {
  const json = JSON.stringify(await feed.socket.request('eth_syncing', []));
  if (feed.lastSyncing !== undefined && json !== feed.lastSyncing) deliverAll(feed, feed.syncing, createFeedItem(json));
  feed.lastSyncing = json;
}

/** One item to every subscriber of a kind, in subscription order, counted once. */
function deliverAll(feed: FeedState, delivers: Iterable<Deliver>, item: FeedItem): void {
  let sent = 0;
  for (const deliver of delivers) if (deliver(item)) sent++;
  if (sent > 0) feed.metrics.messagesOut.inc(sent);
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
