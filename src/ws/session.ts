import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import type { EnhancedMethods } from '../alchemy/enhanced-methods.ts';
import type { Principal } from '../auth/principal.ts';
import type { Network } from '../chains/registry.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import { type JsonRpcCall, type JsonRpcId, jsonRpcErrorCodes, rpcErrorText } from '../rpc/jsonrpc.ts';
import { answerMessage } from './answer-message.ts';
import { wsCloseCodes } from './close-codes.ts';
import type { HeadFeed } from './head-feed.ts';
import type { WsMetrics } from './metrics.ts';
import { type FeedItem, subscriptionPrefix, writeSubscriptionFrame } from './subscription-frame.ts';
import { parseSubscriptionRequest, type SubscriptionKind } from './subscription-request.ts';

export interface SessionLimits {
  /** Bytes waiting to be sent above which the client is closed as a slow consumer. */
  maxBufferedBytes: number;
  maxSubscriptions: number;
}

export interface SessionDeps {
  ws: WebSocket;
  /** The connection `ws` runs on (from the upgrade): subscription items are written to it directly. */
  socket: Duplex;
  principal: Principal;
  network: Network;
  limiter: RateLimiter;
  metrics: Metrics;
  enhanced?: EnhancedMethods;
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
}

/** One client connection: its messages, its subscriptions and its bounded send buffer. */
export function startSession(deps: SessionDeps): Session {
  const { ws, socket, wsMetrics, limits, network } = deps;
  const subscriptions = new Map<string, { kind: SubscriptionKind; stop(): void }>();
  const where = `${network.config.chain}/${network.config.network}`;
  let ended = false;
  wsMetrics.connections.inc();

  /** False (and the client closed with 4008) when `bytes` more would go over the unread bound. */
  const withinBound = (bytes: number): boolean => {
    if (ws.bufferedAmount + bytes <= limits.maxBufferedBytes) return true;
    session.close(
      wsCloseCodes.slowConsumer,
      `slow consumer: over ${limits.maxBufferedBytes} bytes unread; read faster or subscribe to less`,
      'slow_consumer',
    );
    return false;
  };

  /** Answers and errors: one message each, framed by `ws`. */
  const send = (text: string) => {
    if (ws.readyState !== WebSocket.OPEN || !withinBound(Buffer.byteLength(text))) return;
    ws.send(text);
    wsMetrics.messagesOut.inc();
  };

  /** Subscription items, the fan-out's hot path: the feed counts what was written. */
  const deliverTo =
    (prefix: Buffer) =>
    (item: FeedItem): boolean => {
      if (ws.readyState !== WebSocket.OPEN || socket.destroyed) return false;
      if (!withinBound(item.header(prefix.length).length + prefix.length + item.tail.length)) return false;
      writeSubscriptionFrame(socket, prefix, item);
      return true;
    };

  const subscribe = (id: JsonRpcId | undefined, params: unknown): string => {
    let request: ReturnType<typeof parseSubscriptionRequest>;
    try {
      request = parseSubscriptionRequest(params);
    } catch (error) {
      return rpcErrorText(id, { code: jsonRpcErrorCodes.invalid_params, message: (error as Error).message });
    }
    const feed = network.config.kind === 'evm' ? deps.feed() : undefined;
    if (!feed) {
      const message = `eth_subscribe is not available on ${where}: no upstream WebSocket (ws_url) is configured`;
      return rpcErrorText(id, { code: jsonRpcErrorCodes.method_not_found, message });
    }
    if (subscriptions.size >= limits.maxSubscriptions) {
      const message = `this connection already has ${limits.maxSubscriptions} subscriptions, the most allowed; unsubscribe first or open another connection`;
      return rpcErrorText(id, { code: jsonRpcErrorCodes.limit_exceeded, message });
    }
    const subscription = `0x${randomBytes(16).toString('hex')}`;
    const stop = feed.subscribe(request, deliverTo(subscriptionPrefix(subscription)));
    subscriptions.set(subscription, { kind: request.kind, stop });
    wsMetrics.subscriptions.inc({ kind: request.kind });
    return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result: subscription });
  };

  /** Only this connection's ids: another's (or an unknown) id answers false, revealing nothing. */
  const unsubscribe = (id: JsonRpcId | undefined, params: unknown): string => {
    const subscription = Array.isArray(params) && params.length === 1 ? params[0] : undefined;
    if (typeof subscription !== 'string') {
      return rpcErrorText(id, {
        code: jsonRpcErrorCodes.invalid_params,
        message: 'eth_unsubscribe expects params [subscription id]',
      });
    }
    const found = subscriptions.get(subscription);
    if (found) stopSubscription(subscription, found);
    return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result: found !== undefined });
  };

  const stopSubscription = (subscription: string, found: { kind: SubscriptionKind; stop(): void }) => {
    found.stop();
    subscriptions.delete(subscription);
    wsMetrics.subscriptions.dec({ kind: found.kind });
  };

  const answerLocal = (call: JsonRpcCall): string => {
    // The client left while the message was charged: nothing to subscribe for.
    if (ended) return rpcErrorText(call.id, { code: jsonRpcErrorCodes.internal_error, message: 'connection closed' });
    return call.method === 'eth_subscribe' ? subscribe(call.id, call.params) : unsubscribe(call.id, call.params);
  };

  ws.on('message', (data) => {
    wsMetrics.messagesIn.inc();
    const text = (data as Buffer).toString('utf8');
    const reply = (answer: string) => {
      if (answer !== '') send(answer);
    };
    answerMessage({ ...deps, answerLocal }, text).then(reply, (error: unknown) => {
      deps.logger.error({ err: error, chain: network.config.chain, network: network.config.network }, 'WebSocket message failed');
      send(
        rpcErrorText(null, { code: jsonRpcErrorCodes.internal_error, message: 'internal error; retry with exponential backoff' }),
      );
    });
  });

  ws.on('pong', () => {
    session.alive = true;
  });
  ws.on('error', (error) => deps.logger.debug({ err: error }, 'client WebSocket error'));
  const closed = new Promise<void>((resolve) => {
    ws.once('close', () => {
      ended = true;
      for (const [subscription, found] of subscriptions) stopSubscription(subscription, found);
      wsMetrics.connections.dec();
      resolve();
    });
  });

  const session: Session = {
    alive: true,
    closed,
    close(code, reason, metricReason) {
      if (ended || ws.readyState !== WebSocket.OPEN) return;
      wsMetrics.serverCloses.inc({ reason: metricReason });
      // Stop producing at once; the close frame waits behind what is already buffered.
      for (const [subscription, found] of subscriptions) stopSubscription(subscription, found);
      ws.close(code, reason);
      // A client that never reads never acknowledges the close either.
      setTimeout(() => ws.terminate(), 10_000).unref();
    },
  };
  return session;
}
