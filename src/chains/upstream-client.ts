import { Pool, errors as undiciErrors } from 'undici';

/** `overloaded` and `circuit_open` come from a pool refusing to send, before any request. */
export type UpstreamFailure = 'timeout' | 'connection' | 'http_status' | 'overloaded' | 'circuit_open';

/** An upstream that did not answer with a JSON-RPC response; the raw detail stays in the cause. */
export class UpstreamError extends Error {
  constructor(
    readonly reason: UpstreamFailure,
    message: string,
    options: { cause?: unknown; status?: number } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'UpstreamError';
    this.status = options.status;
  }
  readonly status: number | undefined;
}

export interface UpstreamClient {
  readonly url: string;
  /** POSTs a JSON-RPC body and returns the upstream's JSON text unchanged ('' for a notification). */
  send(body: string): Promise<string>;
  close(): Promise<void>;
}

export interface UpstreamClientOptions {
  url: string;
  timeoutMs?: number;
  connections?: number;
}

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };

/** A keep-alive connection pool to one JSON-RPC upstream. */
export function createUpstreamClient({ url, timeoutMs = 30_000, connections = 64 }: UpstreamClientOptions): UpstreamClient {
  const target = new URL(url);
  const path = `${target.pathname}${target.search}`;
  const pool = new Pool(target.origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connectTimeout: Math.min(timeoutMs, 10_000),
  });

  return {
    url,
    async send(body) {
      let response: Awaited<ReturnType<Pool['request']>>;
      try {
        response = await pool.request({ path, method: 'POST', headers: jsonHeaders, body });
      } catch (error) {
        throw classify(error);
      }
      let text: string;
      try {
        text = await response.body.text();
      } catch (error) {
        throw classify(error);
      }
      // Nodes answer JSON-RPC errors with 200 (or 4xx with a JSON-RPC body); 429 and 5xx mean the node
      // itself is in trouble.
      // A notification (a call without id) gets no answer: 204, or 200 with an empty body.
      if (response.statusCode < 300 && text.trim() === '') return '';
      if (response.statusCode === 429 || response.statusCode >= 500 || !looksLikeJson(text)) {
        throw new UpstreamError('http_status', `upstream answered HTTP ${response.statusCode}`, { status: response.statusCode });
      }
      return text;
    },
    close: () => pool.close(),
  };
}

function looksLikeJson(text: string): boolean {
  const first = text.trimStart()[0];
  return first === '{' || first === '[';
}

function classify(error: unknown): UpstreamError {
  if (
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError
  ) {
    return new UpstreamError('timeout', 'upstream timed out', { cause: error });
  }
  return new UpstreamError('connection', 'upstream connection failed', { cause: error });
}
