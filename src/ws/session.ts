import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { Principal } from '../auth/principal.ts';
import { type JsonRpcCall, type JsonRpcId, jsonRpcErrorCodes, rpcErrorText } from '../jsonrpc/messages.ts';
import { type AnswerDeps, answerMessage } from './answer-message.ts';
import { wsCloseCodes } from './close-codes.ts';
import type { HeadFeed } from './head-feed.ts';
import type { WsMetrics } from './metrics.ts';
import { hasWebSocketUpstream } from './polled-upstream.ts';
import { type Deliver, type FeedItem, subscriptionPrefix, writeSubscriptionFrame } from './subscription-frame.ts';
import { parseSubscriptionRequest, type SubscriptionKind } from './subscription-request.ts';

export interface SessionLimits {
  /** Bytes waiting to be sent above which the client is closed as a slow consumer. */
  maxBufferedBytes: number;
  maxSubscriptions: number;
}

/** What a message's answer needs (answer-message.ts), beside the socket's own parts. */
type AnswerParts = Pick<AnswerDeps, 'principal' | 'network' | 'limiter' | 'metrics' | 'enhanced' | 'dataQueries' | 'usage'>;

export interface SessionDeps extends AnswerParts {
  ws: WebSocket;
  /** The connection `ws` runs on (from the upgrade): subscription items are written to it directly. */
  socket: Duplex;
  wsMetrics: WsMetrics;
  logger: Logger;
  limits: SessionLimits;
  /** The network's shared feed; undefined when it has no WebSocket upstream. */
  feed(): HeadFeed | undefined;
}

export interface Session {
  /** Cleared by each ping, set by the pong: false at the next ping means a dead peer. */
  alive: boolean;
  readonly closed: Promise<void>;
  close(code: number, reason: string, metricReason: string): void;
  /** The key as it is now (src/ws/key-watch.ts): the next message is checked and charged with it. */
  setPrincipal(principal: Principal): void;
  /** Messages that come until `reread` settles wait for it (the key is being read again after a change). */
  hold(reread: Promise<void>): void;
}

type ActiveSubscription = { kind: SubscriptionKind; stop(): void };

/** One connection's state, shared by the steps below. */
interface SessionState {
  deps: SessionDeps;
  subscriptions: Map<string, ActiveSubscription>;
  /** `chain/network`, for messages. */
  where: string;
  ended: boolean;
}

/** One client connection: its messages, its subscriptions and its bounded send buffer. */
export function startSession(deps: SessionDeps): Session {
  const { ws, wsMetrics, network } = deps;
  const state: SessionState = {
    deps,
    subscriptions: new Map(),
    where: `${network.config.chain}/${network.config.network}`,
    ended: false,
  };
  wsMetrics.connections.inc();

  // Built once per connection, not per message.
  const answerDeps: AnswerDeps = {
    ...deps,
    answerLocal: (call) => answerLocal(state, call),
    beforeLocal: (calls) => untilFeedFollows(state, calls),
  };
  const reply = (answer: string) => {
    if (answer !== '') send(state, answer);
  };
  const onAnswerFailed = (error: unknown) => {
    deps.logger.error({ err: error, chain: network.config.chain, network: network.config.network }, 'WebSocket message failed');
    send(
      state,
      rpcErrorText(null, { code: jsonRpcErrorCodes.internal_error, message: 'internal error; retry with exponential backoff' }),
    );
  };
  // Set while the key is read again after a change: messages wait for it, in the order they came.
  let held: Promise<void> | undefined;
  const answer = (text: string) => answerMessage(answerDeps, text).then(reply, onAnswerFailed);
  ws.on('message', (data) => {
    wsMetrics.messagesIn.inc();
    const text = (data as Buffer).toString('utf8');
    if (held === undefined) void answer(text);
    else void held.then(() => (state.ended ? undefined : answer(text)));
  });

  ws.on('pong', () => {
    session.alive = true;
  });
  ws.on('error', (error) => deps.logger.debug({ err: error }, 'client WebSocket error'));
  const closed = new Promise<void>((resolve) => {
    ws.once('close', () => {
      state.ended = true;
      stopAllSubscriptions(state);
      wsMetrics.connections.dec();
      resolve();
    });
  });

  const session: Session = {
    alive: true,
    closed,
    close: (code, reason, metricReason) => closeSession(state, code, reason, metricReason),
    setPrincipal: (principal) => {
      deps.principal = principal;
      answerDeps.principal = principal;
    },
    hold: (reread) => {
      const gate: Promise<void> = Promise.all([held, reread.catch(() => undefined)]).then(() => {
        if (held === gate) held = undefined;
      });
      held = gate;
    },
  };
  return session;
}

function closeSession(state: SessionState, code: number, reason: string, metricReason: string): void {
  const { ws, wsMetrics } = state.deps;
  if (state.ended || ws.readyState !== WebSocket.OPEN) return;
  wsMetrics.serverCloses.inc({ reason: metricReason });
  // Stop producing at once; the close frame waits behind what is already buffered.
  stopAllSubscriptions(state);
  ws.close(code, reason);
  // A client that never reads never acknowledges the close either.
  setTimeout(() => ws.terminate(), 10_000).unref();
}

/**
 * False (and the client closed with 4008) when more than the bound already waits unread. What waits is
 * the backlog, not the next message: one answer or item larger than the bound (a wide eth_getLogs, a
 * block with its transactions) still goes to a client that reads, so the buffer holds at most the bound
 * plus one message.
 */
function withinBound(state: SessionState): boolean {
  const { ws, limits } = state.deps;
  if (ws.bufferedAmount <= limits.maxBufferedBytes) return true;
  closeSession(
    state,
    wsCloseCodes.slowConsumer,
    `slow consumer: over ${limits.maxBufferedBytes} bytes unread; read faster or subscribe to less`,
    'slow_consumer',
  );
  return false;
}

/** Answers and errors: one message each, framed by `ws`. */
function send(state: SessionState, text: string): void {
  const { ws, wsMetrics } = state.deps;
  if (ws.readyState !== WebSocket.OPEN || !withinBound(state)) return;
  ws.send(text);
  wsMetrics.messagesOut.inc();
}

/** Subscription items, the fan-out's hot path: the feed counts what was written. */
function deliverTo(state: SessionState, prefix: Buffer): Deliver {
  const { ws, socket } = state.deps;
  return (item: FeedItem): boolean => {
    if (ws.readyState !== WebSocket.OPEN || socket.destroyed) return false;
    if (!withinBound(state)) return false;
    writeSubscriptionFrame(socket, prefix, item);
    return true;
  };
}

function answerLocal(state: SessionState, call: JsonRpcCall): string {
  // The client left while the message was charged: nothing to subscribe for.
  if (state.ended) return rpcErrorText(call.id, { code: jsonRpcErrorCodes.internal_error, message: 'connection closed' });
  return call.method === 'eth_subscribe' ? subscribe(state, call.id, call.params) : unsubscribe(state, call.id, call.params);
}

const pendingKinds = new Set(['newPendingTransactions', 'alchemy_pendingTransactions']);
/** Kinds served from the feed's heads: a client told its subscription id must get every block after it. */
const headKinds = new Set(['newHeads', 'logs', 'syncing', 'alchemy_minedTransactions']);
/** The longest a subscription's answer waits for a new feed (an upstream that does not answer): then it is answered anyway. */
const feedFollowWaitMs = 2_000;

/**
 * A subscription to a feed that does not follow the chain yet (the network's first subscriber, or the
 * first after an idle feed closed) is answered once it does, within `feedFollowWaitMs`: a block mined
 * after the client has its subscription id is then always sent.
 */
async function untilFeedFollows(state: SessionState, calls: readonly JsonRpcCall[]): Promise<void> {
  const followsHeads = (call: JsonRpcCall) =>
    call.method === 'eth_subscribe' && Array.isArray(call.params) && headKinds.has(call.params[0] as string);
  if (state.deps.network.config.kind !== 'evm' || !calls.some(followsHeads)) return;
  const notYet = state.deps.feed()?.followingHeads();
  if (!notYet) return;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, feedFollowWaitMs);
  });
  await Promise.race([notYet, waited]);
  clearTimeout(timer);
}

function subscribe(state: SessionState, id: JsonRpcId | undefined, params: unknown): string {
  const { deps, subscriptions } = state;
  const { network, limits, wsMetrics } = deps;
  let request: ReturnType<typeof parseSubscriptionRequest>;
  try {
    request = parseSubscriptionRequest(params);
  } catch (error) {
    return rpcErrorText(id, { code: jsonRpcErrorCodes.invalid_params, message: (error as Error).message });
  }
  const feed = network.config.kind === 'evm' ? deps.feed() : undefined;
  if (!feed) {
    const message =
      network.config.kind === 'evm'
        ? 'eth_subscribe is not available: the service is shutting down'
        : `eth_subscribe is not available on ${state.where}: subscriptions are served on EVM networks`;
    return rpcErrorText(id, { code: jsonRpcErrorCodes.method_not_found, message });
  }
  if (pendingKinds.has(request.kind) && !hasWebSocketUpstream(network)) {
    const message = `${request.kind} is not available on ${state.where}: pending transactions need an upstream WebSocket (ws_url); new heads, logs and mined transactions are served from its HTTP upstreams`;
    return rpcErrorText(id, { code: jsonRpcErrorCodes.method_not_found, message });
  }
  if (subscriptions.size >= limits.maxSubscriptions) {
    const message = `this connection already has ${limits.maxSubscriptions} subscriptions, the most allowed; unsubscribe first or open another connection`;
    return rpcErrorText(id, { code: jsonRpcErrorCodes.limit_exceeded, message });
  }
  const subscription = `0x${randomBytes(16).toString('hex')}`;
  const stop = feed.subscribe(request, deliverTo(state, subscriptionPrefix(subscription)));
  subscriptions.set(subscription, { kind: request.kind, stop });
  wsMetrics.subscriptions.inc({ kind: request.kind });
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result: subscription });
}

/** Only this connection's ids: another's (or an unknown) id answers false, revealing nothing. */
function unsubscribe(state: SessionState, id: JsonRpcId | undefined, params: unknown): string {
  const subscription = Array.isArray(params) && params.length === 1 ? params[0] : undefined;
  if (typeof subscription !== 'string') {
    return rpcErrorText(id, {
      code: jsonRpcErrorCodes.invalid_params,
      message: 'eth_unsubscribe expects params [subscription id]',
    });
  }
  const found = state.subscriptions.get(subscription);
  if (found) stopSubscription(state, subscription, found);
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result: found !== undefined });
}

function stopSubscription(state: SessionState, subscription: string, found: ActiveSubscription): void {
  found.stop();
  state.subscriptions.delete(subscription);
  state.deps.wsMetrics.subscriptions.dec({ kind: found.kind });
}

function stopAllSubscriptions(state: SessionState): void {
  for (const [subscription, found] of state.subscriptions) stopSubscription(state, subscription, found);
}
