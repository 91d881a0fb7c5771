import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Answers compressed for clients that ask (`Accept-Encoding: gzip` or `br`, as Alchemy's and Infura's
 * endpoints answer them), when they are at least `minBytes` long (setting `compress_min_bytes`, 2,048
 * by default; 0: never): a block with its transactions or a page of logs shrinks to a fifth. gzip at
 * level 1 (about 8 ms of CPU per MB, on libuv's threads, not the event loop) is preferred over brotli
 * when both are accepted: cheaper for nearly the same size.
 */
export type ContentCoding = 'gzip' | 'br';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/** The coding to answer with for an `Accept-Encoding` header (q-values honoured), or undefined for none. */
export function acceptedCoding(header: string | string[] | undefined): ContentCoding | undefined {
  if (header === undefined) return undefined;
  const weights = new Map<string, number>();
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name = '', ...params] = part.split(';');
    const q = params.map((param) => /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(param)?.[1]).find((value) => value !== undefined);
    const weight = q === undefined ? 1 : Number(q);
    weights.set(name.trim().toLowerCase(), Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (coding: ContentCoding) => weights.get(coding) ?? weights.get('*') ?? 0;
  const [gzipWeight, brWeight] = [weightOf('gzip'), weightOf('br')];
  if (gzipWeight <= 0 && brWeight <= 0) return undefined;
  return gzipWeight >= brWeight ? 'gzip' : 'br';
}

export function compressBody(body: string | Buffer, coding: ContentCoding): Promise<Buffer> {
  return coding === 'gzip'
    ? gzipAsync(body, { level: 1 })
    : brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
}

/** `vary` with Accept-Encoding added (an answer that could have been compressed varies with it). */
export function varyOnEncoding(vary: string | number | string[] | undefined): string {
  const present = vary === undefined ? '' : String(vary);
  return /(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(present)
    ? present
    : present
      ? `${present}, Accept-Encoding`
      : 'Accept-Encoding';
}

const compressibleType = /^(application\/(json|javascript|xml|yaml)|text\/|application\/[a-z.+-]+\+(json|xml))/i;

/**
 * Fastify's last `onSend` step for a route: compresses a text or buffer answer the client accepts
 * compressed. Streams, answers already encoded (the dashboard's precompressed assets), HEAD, 204 and
 * 304 answers go out untouched.
 */
export function compressingOnSend(minBytes: number) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    if (minBytes <= 0 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
    if (payload.length < minBytes || request.method === 'HEAD' || reply.statusCode === 204 || reply.statusCode === 304) {
      return payload;
    }
    if (reply.hasHeader('content-encoding') || !compressibleType.test(String(reply.getHeader('content-type') ?? ''))) {
      return payload;
    }
    reply.header('vary', varyOnEncoding(reply.getHeader('vary')));
    const coding = acceptedCoding(request.headers['accept-encoding']);
    if (coding === undefined) return payload;
    const compressed = await compressBody(payload, coding);
    reply.header('content-encoding', coding);
    reply.removeHeader('content-length');
    return compressed;
  };
}
