import type { Logger } from 'pino';
import WebSocket from 'ws';
import { expectedText, identityMethod, type SocketIdentity, socketIdentityProblem } from './socket-identity.ts';

/** A JSON-RPC error the upstream answered with. */
export class UpstreamRpcError extends Error {
  constructor(readonly error: { code: number; message: string }) {
    super(`upstream error ${error.code}: ${error.message}`);
    this.name = 'UpstreamRpcError';
  }
}

export interface UpstreamSocket {
  /** Sends a call on the current connection; rejects if there is none or it drops before the answer. */
  request(method: string, params: unknown[]): Promise<unknown>;
  /** Whether a connection is open now and passed its identity check (`onOpen` runs on each new one). */
  isOpen(): boolean;
  /** Drops the current connection (it misbehaves) and connects again, to another upstream when there is one. */
  reconnect(reason: string): void;
  close(): Promise<void>;
}

export interface UpstreamSocketOptions {
  /** Candidate URLs, best first, asked again at every (re)connect (a pool's ranking changes). */
  urls: () => readonly string[];
  logger: Logger;
  /**
   * Asked of every connection before `onOpen`: a node of another chain is dropped with one warn line,
   * counted, and its URL avoided while another candidate is left.
   */
  identity?: SocketIdentity;
  /** Runs on every (re)connect, once the identity passed; a failure drops the connection to retry. */
  onOpen(reconnected: boolean): Promise<void>;
  onNotification(subscription: string, result: unknown): void;
  requestTimeoutMs?: number;
  /** Pings the upstream this often; no pong by the next ping drops the connection (a stalled node). */
  pingIntervalMs?: number;
  backoff?: { initialMs: number; maxMs: number };
}

const failureMemoryMs = 60_000;
/** A URL that served another chain is tried last for this long (and logged once in it). */
const refusalMemoryMs = 600_000;

type PendingCall = { resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout };

/** One socket's connection and calls, shared by the steps below. */
interface SocketState {
  options: UpstreamSocketOptions;
  requestTimeoutMs: number;
  pingIntervalMs: number;
  backoff: { initialMs: number; maxMs: number };
  pending: Map<number, PendingCall>;
  socket: WebSocket | undefined;
  closed: boolean;
  opened: boolean;
  /** The current connection passed its identity check: users may call through it. */
  verified: boolean;
  failures: number;
  nextId: number;
  retryTimer: NodeJS.Timeout | undefined;
  url: string;
  /** Host and port only: an upstream URL may carry an API key, logs must not. */
  host: string;
  /** When each URL's connection last failed; older failures than `failureMemoryMs` are forgotten. */
  failedAt: Map<string, number>;
  /** When each URL last answered another chain's identity. */
  refusedAt: Map<string, number>;
  /** The connection closing now was dropped for its identity (already logged). */
  refusedConnection: boolean;
}

/**
 * One JSON-RPC WebSocket connection to an upstream node that reconnects by itself, with exponential
 * backoff and jitter, until closed. A connection that drops or is abandoned sends the next attempt to
 * another candidate when there is one, so a dead or stalled node is left at once. Subscriptions are
 * the caller's to renew in `onOpen`.
 */
export function createUpstreamSocket(options: UpstreamSocketOptions): UpstreamSocket {
  const state: SocketState = {
    options,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    pingIntervalMs: options.pingIntervalMs ?? 15_000,
    backoff: options.backoff ?? { initialMs: 100, maxMs: 5_000 },
    pending: new Map(),
    socket: undefined,
    closed: false,
    opened: false,
    verified: false,
    failures: 0,
    nextId: 1,
    retryTimer: undefined,
    url: '',
    host: '',
    failedAt: new Map(),
    refusedAt: new Map(),
    refusedConnection: false,
  };

  connect(state);

  return {
    isOpen: () => state.verified && state.socket?.readyState === WebSocket.OPEN,
    request: (method, params) =>
      state.verified ? sendRequest(state, method, params) : Promise.reject(new Error('upstream WebSocket not connected')),
    reconnect(reason) {
      if (state.closed || !state.socket) return;
      options.logger.warn({ upstream: state.host, reason }, 'leaving the upstream WebSocket');
      state.socket.terminate();
    },
    close: () => closeSocket(state),
  };
}

/**
 * A candidate that did not serve another chain lately, else any; among those the one that failed
 * least recently (never, within memory, is best); the pool's order breaks ties.
 */
function nextUrl(state: SocketState): string {
  const now = Date.now();
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of state.options.urls()) {
    const failed = state.failedAt.get(candidate) ?? 0;
    const refused = isRefused(state, candidate, now);
    const score = (refused ? now : 0) + (now - failed < failureMemoryMs ? failed : 0);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best ?? state.url;
}

function isRefused(state: SocketState, url: string, now: number): boolean {
  const refused = state.refusedAt.get(url);
  return refused !== undefined && now - refused < refusalMemoryMs;
}

function connect(state: SocketState): void {
  const { options, pingIntervalMs } = state;
  const { logger } = options;
  state.url = nextUrl(state);
  state.host = new URL(state.url).host;
  // One message per tick: a subscription's first notification must not overtake the code that
  // records the id from the eth_subscribe answer just before it.
  const ws = new WebSocket(state.url, { perMessageDeflate: false, handshakeTimeout: 10_000, allowSynchronousEvents: false });
  state.socket = ws;
  let alive = true;
  const pinger = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, pingIntervalMs).unref();
  ws.on('pong', () => {
    alive = true;
  });
  ws.on('open', () => {
    setUp(state, ws).catch((error: unknown) => {
      logger.warn({ err: error, upstream: state.host }, 'upstream WebSocket set-up failed; reconnecting');
      ws.terminate();
    });
  });
  ws.on('message', (data) => onMessage(state, String(data)));
  ws.on('error', (error) => logger.debug({ err: error, upstream: state.host }, 'upstream WebSocket error'));
  ws.on('close', () => {
    clearInterval(pinger);
    state.verified = false;
    onClose(state);
  });
}

/** A new connection: its identity first, then the user's `onOpen`; a wrong chain drops it. */
async function setUp(state: SocketState, ws: WebSocket): Promise<void> {
  if (!(await identityPasses(state))) {
    state.refusedConnection = true;
    ws.terminate();
    return;
  }
  if (state.socket !== ws || ws.readyState !== WebSocket.OPEN) return;
  state.failures = 0;
  state.verified = true;
  const reconnected = state.opened;
  state.opened = true;
  await state.options.onOpen(reconnected);
}

/** Asks the connection which chain it serves; false (logged once per episode, counted) for another chain. */
async function identityPasses(state: SocketState): Promise<boolean> {
  const { identity, logger } = state.options;
  if (!identity) return true;
  const { url, host } = state;
  const answer = await sendRequest(state, identityMethod(identity.expected), []);
  const problem = socketIdentityProblem(identity.expected, answer);
  if (problem === undefined) {
    if (state.refusedAt.delete(url)) {
      logger.info({ upstream: host, network: identity.network }, `upstream WebSocket ${host} serves the network's chain again`);
    }
    return true;
  }
  if (!isRefused(state, url, Date.now())) {
    identity.refused(url);
    const found = typeof answer === 'string' ? answer : JSON.stringify(answer);
    logger.warn(
      { upstream: host, network: identity.network, expected: expectedText(identity.expected), found, reason: problem },
      `upstream WebSocket ${host} of ${identity.network} serves another chain (${problem}); trying another`,
    );
  }
  state.refusedAt.set(url, Date.now());
  return false;
}

/** Fails the calls still waiting, then (unless closed) connects again after a backoff. */
function onClose(state: SocketState): void {
  const { pending, backoff } = state;
  for (const [id, call] of pending) {
    clearTimeout(call.timer);
    call.reject(new Error('upstream WebSocket closed'));
    pending.delete(id);
  }
  if (state.closed) return;
  state.failedAt.set(state.url, Date.now());
  const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** state.failures++) * (0.5 + Math.random() / 2);
  const level = state.refusedConnection ? 'debug' : 'warn';
  state.refusedConnection = false;
  state.options.logger[level]({ upstream: state.host, retryInMs: Math.round(delay) }, 'upstream WebSocket lost; reconnecting');
  state.retryTimer = setTimeout(connect, delay, state);
}

function onMessage(state: SocketState, text: string) {
  let message: {
    id?: number;
    result?: unknown;
    error?: { code: number; message: string };
    params?: { subscription: string; result: unknown };
  };
  try {
    message = JSON.parse(text);
  } catch {
    return state.options.logger.warn({ upstream: state.host }, 'upstream WebSocket sent a message that is not JSON');
  }
  if (message.params && typeof message.params.subscription === 'string') {
    return state.options.onNotification(message.params.subscription, message.params.result);
  }
  const call = typeof message.id === 'number' ? state.pending.get(message.id) : undefined;
  if (!call) return;
  state.pending.delete(message.id!);
  clearTimeout(call.timer);
  if (message.error) call.reject(new UpstreamRpcError(message.error));
  else call.resolve(message.result);
}

function sendRequest(state: SocketState, method: string, params: unknown[]): Promise<unknown> {
  const ws = state.socket;
  if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error('upstream WebSocket not connected'));
  const { pending, requestTimeoutMs } = state;
  const id = state.nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error(`upstream ${method} timed out after ${requestTimeoutMs} ms`));
    }, requestTimeoutMs);
    pending.set(id, { resolve, reject, timer });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

async function closeSocket(state: SocketState): Promise<void> {
  state.closed = true;
  clearTimeout(state.retryTimer);
  const ws = state.socket;
  if (!ws || ws.readyState === WebSocket.CLOSED) return;
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => ws.terminate(), 1_000);
    ws.once('close', () => {
      clearTimeout(force);
      resolve();
    });
    if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    else ws.close(1000, 'closing');
  });
}
