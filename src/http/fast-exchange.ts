import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorCodes } from 'fastify';
import type { HeaderSink } from './charge.ts';
import { clientAddress, type TrustProxy } from './client-address.ts';

/**
 * One request answered by a fast route (src/http/fast-route.ts) on Node's own objects: its id, path
 * parameters, and the response headers gathered so far, in the order Fastify would send them.
 */
export class FastExchange implements HeaderSink {
  /** Lower-case names, like Fastify's reply headers. */
  readonly responseHeaders: Record<string, string>;
  readonly started = performance.now();
  /** Set when the request arrives: the server was draining then, so the request is refused. */
  arrivedWhileClosing = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly id: string,
    readonly params: readonly string[],
    /** Setting `trust_proxy`: whose X-Forwarded-For is believed for the client's address. */
    readonly trustProxy?: TrustProxy,
  ) {
    this.responseHeaders = { 'x-request-id': id };
  }

  /** The client's address, with the rule of Fastify's `request.ip` (src/http/client-address.ts). */
  get ip(): string | undefined {
    return clientAddress(this.req, this.trustProxy);
  }

  headers(values: Record<string, string>): this {
    for (const name in values) this.responseHeaders[name.toLowerCase()] = values[name]!;
    return this;
  }

  /**
   * The body as text, read like Fastify's string body parser: a declared or actual size over `limit`
   * is `FST_ERR_CTP_BODY_TOO_LARGE`, a body shorter or longer than its Content-Length
   * `FST_ERR_CTP_INVALID_CONTENT_LENGTH`, a stream error a 400; each closes the connection.
   */
  readBody(limit: number): Promise<string> {
    const req = this.req;
    const declared = Number(req.headers['content-length']);
    if (declared > limit) return Promise.reject(this.bodyFailed(tooLarge(limit)));
    if (req.complete) {
      // Usually the whole (small) body came with the headers and is buffered already: take it at once.
      const buffered: Buffer | null = req.read();
      const received = buffered?.length ?? 0;
      if (received > limit) return Promise.reject(this.bodyFailed(tooLarge(limit)));
      if (!Number.isNaN(declared) && received !== declared) {
        return Promise.reject(this.bodyFailed(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH()));
      }
      return Promise.resolve(buffered === null ? '' : buffered.toString('utf8'));
    }
    return new Promise((resolve, reject) => {
      (req as ReadingRequest)[reading] = { exchange: this, chunks: [], received: 0, limit, declared, resolve, reject };
      req.on('data', onBodyData);
      req.on('end', onBodyEnd);
      req.on('error', onBodyEnd);
      req.resume();
    });
  }

  /** The client may still be sending: the answer closes the connection. */
  bodyFailed(error: Error): Error {
    this.responseHeaders.connection = 'close';
    return error;
  }
}

const reading = Symbol('body being read');

/** Fastify's error, carrying the limit for the answer's message (src/http/error-handler.ts). */
function tooLarge(limit: number): Error {
  return Object.assign(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), { limit });
}

/** A body arriving in several chunks: its state rides on the request, so the listeners are shared functions. */
interface BodyReading {
  readonly exchange: FastExchange;
  readonly chunks: Buffer[];
  received: number;
  readonly limit: number;
  readonly declared: number;
  resolve(body: string): void;
  reject(error: Error): void;
}

type ReadingRequest = IncomingMessage & { [reading]?: BodyReading };

function stopReading(req: ReadingRequest): BodyReading {
  req.removeListener('data', onBodyData);
  req.removeListener('end', onBodyEnd);
  req.removeListener('error', onBodyEnd);
  const state = req[reading]!;
  req[reading] = undefined;
  return state;
}

function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const state = this[reading]!;
  state.received += chunk.length;
  if (state.received > state.limit) {
    stopReading(this);
    state.reject(state.exchange.bodyFailed(tooLarge(state.limit)));
    return;
  }
  state.chunks.push(chunk);
}

function onBodyEnd(this: ReadingRequest, error?: Error & { statusCode?: number }): void {
  const state = stopReading(this);
  if (error != null) {
    // The server closed the connection because the body came too slowly (the client got a 408):
    // the log line and the metrics say so, rather than the stream's own 'aborted'.
    const closedBy = this.socket.errored as (Error & { code?: string }) | null;
    if (closedBy?.code === 'ERR_HTTP_REQUEST_TIMEOUT') error = closedBy;
    else if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
    state.reject(state.exchange.bodyFailed(error));
  } else if (!Number.isNaN(state.declared) && state.received !== state.declared) {
    state.reject(state.exchange.bodyFailed(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH()));
  } else {
    const { chunks, received } = state;
    state.resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, received).toString('utf8'));
  }
}
