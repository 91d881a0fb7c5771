import type { Logger } from 'pino';
import WebSocket from 'ws';

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
  /** Whether a connection is open now (`onOpen` runs on each new one). */
  isOpen(): boolean;
  /** Drops the current connection (it misbehaves) and connects again, to another upstream when there is one. */
  reconnect(reason: string): void;
  close(): Promise<void>;
}

export interface UpstreamSocketOptions {
  /** Candidate URLs, best first, asked again at every (re)connect (a pool's ranking changes). */
  urls: () => readonly string[];
  logger: Logger;
  /** Runs on every (re)connect, before anything else is read; a failure drops the connection to retry. */
  onOpen(reconnected: boolean): Promise<void>;
  onNotification(subscription: string, result: unknown): void;
  requestTimeoutMs?: number;
  /** Pings the upstream this often; no pong by the next ping drops the connection (a stalled node). */
  pingIntervalMs?: number;
  backoff?: { initialMs: number; maxMs: number };
}

/**
 * One JSON-RPC WebSocket connection to an upstream node that reconnects by itself, with exponential
 * backoff and jitter, until closed. A connection that drops or is abandoned sends the next attempt to
 * another candidate when there is one, so a dead or stalled node is left at once. Subscriptions are
 * the caller's to renew in `onOpen`.
 */
const failureMemoryMs = 60_000;

export function createUpstreamSocket(options: UpstreamSocketOptions): UpstreamSocket {
  const { logger, requestTimeoutMs = 10_000, pingIntervalMs = 15_000 } = options;
  const backoff = options.backoff ?? { initialMs: 100, maxMs: 5_000 };
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout }>();
  let socket: WebSocket | undefined;
  let closed = false;
  let opened = false;
  let failures = 0;
  let nextId = 1;
  let retryTimer: NodeJS.Timeout | undefined;
  let url = '';
  /** Host and port only: an upstream URL may carry an API key, logs must not. */
  let host = '';

  /** When each URL's connection last failed; older failures than `failureMemoryMs` are forgotten. */
  const failedAt = new Map<string, number>();

  /** The candidate that failed least recently (never, within memory, is best); the pool's order breaks ties. */
  const nextUrl = (): string => {
    const now = Date.now();
    let best: string | undefined;
    let bestFailedAt = Number.POSITIVE_INFINITY;
    for (const candidate of options.urls()) {
      const failed = failedAt.get(candidate) ?? 0;
      const at = now - failed < failureMemoryMs ? failed : 0;
      if (at < bestFailedAt) {
        best = candidate;
        bestFailedAt = at;
      }
    }
    return best ?? url;
  };

  const connect = () => {
    url = nextUrl();
    host = new URL(url).host;
    // One message per tick: a subscription's first notification must not overtake the code that
    // records the id from the eth_subscribe answer just before it.
    const ws = new WebSocket(url, { perMessageDeflate: false, handshakeTimeout: 10_000, allowSynchronousEvents: false });
    socket = ws;
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
      failures = 0;
      const reconnected = opened;
      opened = true;
      options.onOpen(reconnected).catch((error: unknown) => {
        logger.warn({ err: error, upstream: host }, 'upstream WebSocket set-up failed; reconnecting');
        ws.terminate();
      });
    });
    ws.on('message', (data) => onMessage(String(data)));
    ws.on('error', (error) => logger.debug({ err: error, upstream: host }, 'upstream WebSocket error'));
    ws.on('close', () => {
      clearInterval(pinger);
      for (const [id, call] of pending) {
        clearTimeout(call.timer);
        call.reject(new Error('upstream WebSocket closed'));
        pending.delete(id);
      }
      if (closed) return;
      failedAt.set(url, Date.now());
      const delay = Math.min(backoff.maxMs, backoff.initialMs * 2 ** failures++) * (0.5 + Math.random() / 2);
      logger.warn({ upstream: host, retryInMs: Math.round(delay) }, 'upstream WebSocket lost; reconnecting');
      retryTimer = setTimeout(connect, delay);
    });
  };

  const onMessage = (text: string) => {
    let message: {
      id?: number;
      result?: unknown;
      error?: { code: number; message: string };
      params?: { subscription: string; result: unknown };
    };
    try {
      message = JSON.parse(text);
    } catch {
      return logger.warn({ upstream: host }, 'upstream WebSocket sent a message that is not JSON');
    }
    if (message.params && typeof message.params.subscription === 'string') {
      return options.onNotification(message.params.subscription, message.params.result);
    }
    const call = typeof message.id === 'number' ? pending.get(message.id) : undefined;
    if (!call) return;
    pending.delete(message.id!);
    clearTimeout(call.timer);
    if (message.error) call.reject(new UpstreamRpcError(message.error));
    else call.resolve(message.result);
  };

  connect();

  return {
    isOpen: () => socket?.readyState === WebSocket.OPEN,
    request(method, params) {
      const ws = socket;
      if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error('upstream WebSocket not connected'));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`upstream ${method} timed out after ${requestTimeoutMs} ms`));
        }, requestTimeoutMs);
        pending.set(id, { resolve, reject, timer });
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
      });
    },
    reconnect(reason) {
      if (closed || !socket) return;
      logger.warn({ upstream: host, reason }, 'leaving the upstream WebSocket');
      socket.terminate();
    },
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const ws = socket;
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
    },
  };
}
