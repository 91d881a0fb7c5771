import { randomUUID } from 'node:crypto';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { errorBody } from '../core/errors.ts';
import { toAppError } from './error-handler.ts';

type ServerSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Node's `clientError`: a connection whose request cannot be served (headers or body too slow,
 * headers too large, not HTTP). Answered in the spec's error shape, then the connection is closed.
 */
export function handleClientError(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // The client reset the connection: no one to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) {
    socket.destroy();
    return;
  }
  const appError = toAppError(error);
  const id = randomUUID();
  this.log.debug({ reqId: id, code: appError.code, cause: error.code }, 'connection refused');
  // As Node does: no answer once a response has started on this connection, it would corrupt it.
  const response = (socket as ServerSocket)._httpMessage;
  if (socket.writable && !response?.headersSent) {
    const body = JSON.stringify(errorBody(appError));
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\n` +
        'connection: close\r\n' +
        'content-type: application/json; charset=utf-8\r\n' +
        `content-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
