import { isAscii } from 'node:buffer';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici';
import { classifyAddress } from '../core/address-policy.ts';
import { UpstreamError } from '../core/upstream-error.ts';
import { withTraceparent } from '../tracing/tracing.ts';
import { retryAfterMs } from './retry-after.ts';

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
  /**
   * Ask for gzip-compressed answers, as providers serve them (a block with its receipts shrinks to a
   * fifth over the network). Default: yes, unless the host is a loopback address, where the bytes cost
   * nothing and compressing costs the node CPU.
   */
  gzip?: boolean;
}

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const brotliDecompressAsync = promisify(brotliDecompress);

/** The largest answer a compressed one may expand to (about the longest string V8 holds): no bomb fills the memory. */
const maxAnswerBytes = 512 * 1024 * 1024;

const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json' };
const gzipHeaders = { ...jsonHeaders, 'accept-encoding': 'gzip' };

/** A keep-alive connection pool to one JSON-RPC upstream. */
export function createUpstreamClient(options: UpstreamClientOptions): UpstreamClient {
  const { url, timeoutMs = 30_000, connections = 64 } = options;
  const target = new URL(url);
  const headers = (options.gzip ?? !isLoopbackHost(target.hostname)) ? gzipHeaders : jsonHeaders;
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
      let response: { status: number; text: string; retryAfter: string | undefined };
      try {
        response = await new Promise((resolve, reject) => {
          // With tracing on, a copy with the attempt's `traceparent`: the node may continue the trace.
          pool.dispatch({ path, method: 'POST', headers: withTraceparent(headers), body }, new TextAnswer(resolve, reject));
        });
      } catch (error) {
        throw classify(error);
      }
      const { status, text, retryAfter } = response;
      // Nodes answer JSON-RPC errors with 200 (or 4xx with a JSON-RPC body); 429 and 5xx mean the node
      // itself is in trouble.
      // A notification (a call without id) gets no answer: 204, or 200 with an empty body.
      if (status < 300 && text.trim() === '') return '';
      // 402: Infura's "daily credits spent"; like a 429, another upstream may well answer.
      if (status === 429 || status === 402) {
        throw new UpstreamError('rate_limited', `upstream answered HTTP ${status}`, {
          status,
          retryAfterMs: retryAfterMs(retryAfter, Date.now()),
        });
      }
      if (status >= 500 || !looksLikeJson(text)) {
        throw new UpstreamError('http_status', `upstream answered HTTP ${status}`, { status });
      }
      return text;
    },
    close: () => pool.close(),
  };
}

/**
 * Collects one answer's status and text straight from undici's dispatcher: the `request` API would
 * wrap each answer in a readable stream first, a cost every proxied call pays.
 */
class TextAnswer implements Dispatcher.DispatchHandler {
  private status = 0;
  private retryAfter: string | undefined;
  private encoding: string | undefined;
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly resolve: (answer: { status: number; text: string; retryAfter: string | undefined }) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  onRequestStart(): void {
    // Nothing to set up: the answer is collected below.
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    // 1xx interim answers come first; only the final one counts.
    this.status = statusCode;
    this.chunks.length = 0;
    const encoding = headers['content-encoding'];
    this.encoding = (Array.isArray(encoding) ? encoding.join(',') : encoding)?.trim().toLowerCase();
    if (statusCode === 429 || statusCode === 402) {
      const value = headers['retry-after'];
      this.retryAfter = Array.isArray(value) ? value[0] : value;
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const answer = (plain: Buffer) =>
      this.resolve({ status: this.status, text: decodeAnswer(plain), retryAfter: this.retryAfter });
    if (this.encoding === undefined || this.encoding === '' || this.encoding === 'identity') answer(body);
    else decompress(body, this.encoding).then(answer, this.reject);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.reject(error);
  }
}

/**
 * A node's answer is all ASCII but for the odd error message or token name: ASCII bytes read as latin1
 * give the same string as UTF-8, without the UTF-8 decoder's check of every byte (in a backfill's
 * profile, 0.25-0.7 s instead of 1.2 s for 270 MB of blocks and receipts).
 */
function decodeAnswer(body: Buffer): string {
  return isAscii(body) ? body.toString('latin1') : body.toString('utf8');
}

/** A compressed answer's bytes, for the codings a node may use (gzip asked; deflate or br sent anyway). */
function decompress(body: Buffer, encoding: string): Promise<Buffer> {
  const limits = { maxOutputLength: maxAnswerBytes };
  if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipAsync(body, limits);
  if (encoding === 'deflate') return inflateAsync(body, limits);
  if (encoding === 'br') return brotliDecompressAsync(body, limits);
  return Promise.reject(new Error(`upstream answered in an unknown content-encoding '${encoding}'`));
}

export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost') return true;
  const address = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(address) !== 0 && classifyAddress(address) === 'loopback';
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
