import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { EnhancedMethods } from '../alchemy/enhanced-methods.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import type { RequestFacts, RequestRestrictions } from '../auth/restrictions/request-restrictions.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import type { LimitsConfig } from '../config/limits-settings.ts';
import type { Context } from '../context/context.ts';
import { AppError, errorBody } from '../core/errors.ts';
import { clientAddress, type TrustProxy } from '../http/client-address.ts';
import { toAppError } from '../http/error-handler.ts';
import type { DataQuerySlots } from '../limits/data-query-slots.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import { authorizeUpgrade } from './authorize-upgrade.ts';
import { wsCloseCodes } from './close-codes.ts';
import { createWsConnectionCaps, type WsConnectionCaps } from './connection-caps.ts';
import { handshakeProblem } from './handshake.ts';
import { createHeadFeed, type HeadFeed, type HeadFeedOptions } from './head-feed.ts';
import { createKeyWatch, type KeyWatch } from './key-watch.ts';
import { createWsMetrics, type WsMetrics } from './metrics.ts';
import { createPingSlots, type PingSlots } from './ping-slots.ts';
import { createPolledUpstream, hasWebSocketUpstream, pollIntervalFor } from './polled-upstream.ts';
import { readThroughPool } from './pool-read.ts';
import { type Session, type SessionLimits, startSession } from './session.ts';

export interface WsEndpointOptions extends Partial<SessionLimits> {
  /** Open connections per account and per client address (default 1,000 each). */
  connectionCaps?: Partial<WsConnectionCaps>;
  /** Largest client message; a larger frame closes the connection with 1009. */
  maxPayloadBytes?: number;
  /** Client pings; a client that has not answered the previous ping by the next is terminated. */
  pingIntervalMs?: number;
  upstream?: HeadFeedOptions['socket'];
  /** A network's feed with no subscriber for this long is closed (its upstream subscription or polling stops). */
  feedIdleMs?: number;
}

export interface WsEndpoint {
  /** Closes every client with 1001, then the upstream subscriptions. */
  close(): Promise<void>;
}

/** 1 MiB: far above any sane JSON-RPC call or 100-call batch of reads, small enough to bound memory. */
const defaultMaxPayloadBytes = 1024 * 1024;
/** 1 MiB of unread items (about a thousand heads) before a client counts as too slow. */
const defaultMaxBufferedBytes = 1024 * 1024;
const defaultMaxSubscriptions = 100;
const defaultPingIntervalMs = 30_000;
const defaultFeedIdleMs = 60_000;
/** Keepalive pings go out in slices at least this far apart (30 slices, one a second, by default). */
const minPingTickMs = 1_000;
const maxPingSlices = 30;
const defaultConnectionCaps: WsConnectionCaps = { perAccount: 1_000, perAddress: 1_000 };

/** The endpoint's options from the `limits:` settings. */
export function wsLimits(limits: LimitsConfig): WsEndpointOptions {
  return {
    maxPayloadBytes: limits.wsMaxMessageBytes,
    maxBufferedBytes: limits.wsMaxBufferedBytes,
    maxSubscriptions: limits.wsMaxSubscriptionsPerConnection,
    pingIntervalMs: limits.wsPingIntervalMs,
    feedIdleMs: limits.wsFeedIdleMs,
    connectionCaps: { perAccount: limits.wsMaxConnectionsPerAccount, perAddress: limits.wsMaxConnectionsPerIp },
  };
}
const drainGraceMs = 2_000;
/** Blocks the upstream feed may trail the pool's best head (twice in a row) before it moves to another upstream. */
const lagBlocks = 3;

interface WsEndpointDeps {
  ctx: Context;
  server: Server;
  authenticator: Authenticator;
  limiter: RateLimiter;
  chains: ChainRegistry;
  /** The keys' origins, client addresses and signed requests, checked on the upgrade. */
  restrictions: RequestRestrictions;
  /** Setting `trust_proxy`: the client's address for the per-address cap and the keys' `ips`. */
  trustProxy?: TrustProxy;
  options?: WsEndpointOptions;
  /** Alchemy's enhanced methods, answered over the socket as on /v1/rpc; absent: -32601. */
  enhanced?: EnhancedMethods;
  /** The per-account cap on data queries running at once; absent: no cap. */
  dataQueries?: DataQuerySlots;
  /** Counts upgrades and each call of a message for `GET /v1/usage`; absent: not counted. */
  usage?: UsageRecorder;
}

/** The endpoint's parts and open connections, shared by the steps below. */
interface EndpointState {
  deps: WsEndpointDeps;
  wsMetrics: WsMetrics;
  limits: SessionLimits;
  wss: WebSocketServer;
  connectionCaps: ReturnType<typeof createWsConnectionCaps>;
  sessions: Map<WebSocket, Session>;
  pingSlots: PingSlots<WebSocket>;
  feeds: Map<Network, HeadFeed>;
  keyWatch: KeyWatch;
  closing: boolean;
}

/**
 * `{ws}/v1/ws/{chain}/{network}` on the API's HTTP server: the upgrade is decided (auth, network,
 * limits) before a WebSocket exists, refusals answer with the REST error body. One feed per network
 * serves every connection.
 */
export function createWsEndpoint(deps: WsEndpointDeps): WsEndpoint {
  const { ctx, server, options = {} } = deps;
  const pingIntervalMs = options.pingIntervalMs ?? defaultPingIntervalMs;
  const pingSlices = Math.max(1, Math.min(maxPingSlices, Math.floor(pingIntervalMs / minPingTickMs)));
  const state: EndpointState = {
    deps,
    wsMetrics: createWsMetrics(ctx.metrics.registry),
    limits: {
      maxBufferedBytes: options.maxBufferedBytes ?? defaultMaxBufferedBytes,
      maxSubscriptions: options.maxSubscriptions ?? defaultMaxSubscriptions,
    },
    // No permessage-deflate: sessions write subscription frames to the socket themselves, which is only
    // safe while `ws` writes each of its own frames at once (compression would queue them).
    wss: new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayloadBytes ?? defaultMaxPayloadBytes,
      perMessageDeflate: false,
    }),
    connectionCaps: createWsConnectionCaps({ ...defaultConnectionCaps, ...options.connectionCaps }),
    sessions: new Map(),
    pingSlots: createPingSlots(pingSlices),
    feeds: new Map(),
    keyWatch: createKeyWatch({ authenticator: deps.authenticator, restrictions: deps.restrictions, logger: ctx.logger }),
    closing: false,
  };

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => handleUpgrade(state, request, socket, head);
  server.on('upgrade', onUpgrade);
  const pinger = setInterval(() => pingSessions(state), pingIntervalMs / pingSlices).unref();
  const feedIdleMs = options.feedIdleMs ?? defaultFeedIdleMs;
  const idleSweep = setInterval(() => closeIdleFeeds(state, feedIdleMs), Math.min(30_000, feedIdleMs / 2)).unref();

  return {
    async close() {
      state.closing = true;
      clearInterval(pinger);
      clearInterval(idleSweep);
      server.off('upgrade', onUpgrade);
      state.keyWatch.close();
      await closeConnections(state);
    },
  };
}

/**
 * The network's shared feed, created by its first subscriber: on its WebSocket upstreams, or, for a
 * network listed with HTTP URLs only, on `latest` polled through the pool (polled-upstream.ts).
 */
function feedOf(state: EndpointState, network: Network): HeadFeed | undefined {
  if (state.closing) return undefined;
  let feed = state.feeds.get(network);
  if (!feed) {
    const { chain, network: name, blockTimeS } = network.config;
    const { pool } = network;
    const logger = state.deps.ctx.logger;
    const read = readThroughPool(pool);
    const polled = !hasWebSocketUpstream(network);
    feed = createHeadFeed({
      urls: () => pool.socketUrls(),
      identity: pool.socketIdentity(),
      fallbackRead: read,
      chain,
      network: name,
      logger,
      metrics: state.wsMetrics,
      ...(polled
        ? {
            createUpstream: (handlers) =>
              createPolledUpstream({ ...handlers, read, intervalMs: pollIntervalFor(blockTimeS), logger, chain, network: name }),
          }
        : {
            lag: { bestHead: () => pool.heads.bestHead, maxBlocks: lagBlocks, checkMs: Math.max(1_000, blockTimeS * 1_000) },
            socket: state.deps.options?.upstream,
          }),
    });
    state.feeds.set(network, feed);
  }
  return feed;
}

/**
 * A feed nobody has listened to for `idleMs` is closed: an upstream subscription costs the provider's
 * units for every head (and a polled feed reads `latest` four times a block). The next subscriber
 * starts a new one, from the chain's head then.
 */
function closeIdleFeeds(state: EndpointState, idleMs: number): void {
  for (const [network, feed] of state.feeds) {
    if (feed.idleForMs() < idleMs) continue;
    state.feeds.delete(network);
    feed.close().catch((error: unknown) => state.deps.ctx.logger.warn({ err: error }, 'idle feed not closed cleanly'));
  }
}

function handleUpgrade(state: EndpointState, request: IncomingMessage, socket: Duplex, head: Buffer) {
  const { deps } = state;
  // A client that resets during the checks must not take the process down.
  socket.on('error', () => {});
  if (state.closing) return refuse(socket, shuttingDown());
  const notHandshake = handshakeProblem(request);
  if (notHandshake !== undefined) return refuse(socket, notHandshake);
  const address = clientAddress(request, deps.trustProxy) ?? 'unknown';
  try {
    state.connectionCaps.checkAddress(address);
  } catch (error) {
    return refuse(socket, error as AppError);
  }
  authorizeUpgrade({ ...deps, metrics: deps.ctx.metrics }, request).then(
    (authorized) => admitConnection(state, { request, socket, head, address, ...authorized }),
    (error: unknown) => {
      const appError = toAppError(error as Error);
      if (appError.status >= 500) deps.ctx.logger.error({ err: error }, 'WebSocket upgrade failed');
      refuse(socket, appError);
    },
  );
}

/** An authorized upgrade: counted against the caps, then made a WebSocket with its session. */
function admitConnection(
  state: EndpointState,
  upgrade: {
    request: IncomingMessage;
    socket: Duplex;
    head: Buffer;
    address: string;
    principal: Principal;
    network: Network;
    key: string;
    facts: RequestFacts;
  },
) {
  const { request, socket, head, address, principal, network } = upgrade;
  if (state.closing) return refuse(socket, shuttingDown());
  let release: () => void;
  try {
    release = state.connectionCaps.admit(address, principal.accountId);
  } catch (error) {
    return refuse(socket, error as AppError);
  }
  // A client gone during the checks has closed already: its slot is not kept.
  if (socket.destroyed) return release();
  socket.once('close', release);
  state.wss.handleUpgrade(request, socket, head, (ws) => {
    const { deps } = state;
    const session = startSession({
      ws,
      socket,
      principal,
      network,
      limiter: deps.limiter,
      metrics: deps.ctx.metrics,
      enhanced: deps.enhanced,
      dataQueries: deps.dataQueries,
      usage: deps.usage,
      wsMetrics: state.wsMetrics,
      logger: deps.ctx.logger,
      limits: state.limits,
      feed: () => feedOf(state, network),
    });
    state.sessions.set(ws, session);
    state.pingSlots.add(ws);
    const unwatch = state.keyWatch.watch({
      key: upgrade.key,
      request: upgrade.facts,
      network,
      principal,
      update: (next) => session.setPrincipal(next),
      hold: (reread) => session.hold(reread),
      end: (code, reason) => session.close(code, reason, code === wsCloseCodes.keyRefused ? 'key_refused' : 'key_not_allowed'),
    });
    void session.closed.then(() => {
      unwatch();
      state.sessions.delete(ws);
      state.pingSlots.remove(ws);
    });
  });
}

/** One slice of the connections: each is pinged once per interval, and ended if the last ping went unanswered. */
function pingSessions(state: EndpointState): void {
  for (const ws of state.pingSlots.next()) {
    const session = state.sessions.get(ws);
    if (!session) continue;
    if (!session.alive) {
      state.wsMetrics.serverCloses.inc({ reason: 'keepalive' });
      ws.terminate();
      continue;
    }
    session.alive = false;
    ws.ping();
  }
}

/** Every client closed with 1001 (terminated after a grace period), then the feeds and the server. */
async function closeConnections(state: EndpointState): Promise<void> {
  const { sessions, feeds, wss } = state;
  for (const session of sessions.values()) session.close(wsCloseCodes.goingAway, 'server shutting down', 'shutdown');
  const drained = Promise.all([...sessions.values()].map((session) => session.closed));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([drained, new Promise((resolve) => (timer = setTimeout(resolve, drainGraceMs)))]);
  clearTimeout(timer);
  for (const ws of sessions.keys()) ws.terminate();
  await Promise.all([...feeds.values()].map((feed) => feed.close()));
  await new Promise<void>((resolve) => wss.close(() => resolve()));
}

function shuttingDown(): AppError {
  return new AppError('service_unavailable', 'the server is shutting down; retry shortly or on another instance');
}

/** Answers the upgrade request with an HTTP error and the REST error body; no WebSocket is made. */
function refuse(socket: Duplex, error: AppError) {
  if (socket.destroyed) return;
  const body = JSON.stringify(errorBody(error));
  const headers: Record<string, string | number> = {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
    ...error.headers,
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n${head}\r\n${body}`, () => socket.destroy());
}
