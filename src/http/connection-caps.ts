import { randomUUID } from 'node:crypto';
import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, errorBody } from '../core/errors.ts';

/** Open TCP connections the HTTP server keeps at most (WebSockets included: each is one). */
export interface ConnectionCaps {
  /** In all. */
  readonly total: number;
  /** From one client address (a reverse proxy in front is one address: raise this to `total` there). */
  readonly perAddress: number;
}

export const defaultConnectionCaps: ConnectionCaps = { total: 10_000, perAddress: 1_000 };

/** Connections open now, and how many of them each address holds. */
export interface ConnectionCounts {
  readonly open: number;
  readonly byAddress: ReadonlyMap<string, number>;
}

/**
 * Refuses a connection past a cap before any request is read from it: the client gets one HTTP answer
 * in the error format (429 for its address's cap, 503 when the server is full, `Retry-After: 1`) and
 * the connection is closed. Node's own `maxConnections` would drop it without a word.
 */
export function enforceConnectionCaps(server: Server, caps: ConnectionCaps): ConnectionCounts {
  const byAddress = new Map<string, number>();
  const counts = {
    open: 0,
    byAddress,
  };
  // The HTTP server's own listeners (its parser) see only the connections let in.
  const serverListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? 'unknown';
    const fromAddress = byAddress.get(address) ?? 0;
    if (counts.open >= caps.total) {
      return refuse(
        socket,
        new AppError('service_unavailable', `the server has ${caps.total} connections open, its most; retry shortly`, {
          headers: { 'retry-after': '1' },
        }),
      );
    }
    if (fromAddress >= caps.perAddress) {
      return refuse(
        socket,
        new AppError(
          'rate_limited',
          `your address has ${caps.perAddress} connections open, the most allowed; reuse connections (keep-alive) or close some`,
          { headers: { 'retry-after': '1' } },
        ),
      );
    }
    counts.open++;
    byAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      counts.open--;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left === 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
    for (const listener of serverListeners) listener.call(server, socket);
  });
  return counts;
}

function refuse(socket: Socket, error: AppError): void {
  socket.on('error', () => {});
  // What the client sends is read and dropped (closing with unread bytes would reset the connection,
  // and the client could lose the answer).
  socket.resume();
  const body = JSON.stringify(errorBody(error));
  const headers = Object.entries(error.headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
      'connection: close\r\n' +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${randomUUID()}\r\n${headers}\r\n${body}`,
  );
  // A client that never reads must not hold the socket open.
  setTimeout(() => socket.destroy(), 2_000).unref();
}
