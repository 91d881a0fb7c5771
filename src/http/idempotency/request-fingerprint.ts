import { createHash } from 'node:crypto';
import { invalidRequest } from '../../core/errors.ts';

/** The request header, as the error messages and the docs name it. */
export const idempotencyHeader = 'Idempotency-Key';

/** Stripe's bound: long enough for a UUID with a prefix, short enough to index. */
export const maxIdempotencyKeyLength = 255;

/**
 * The `Idempotency-Key` header's value; undefined when the request has none.
 * @example parseIdempotencyKey('order-42/attempt') // 'order-42/attempt'
 */
export function parseIdempotencyKey(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  // Node joins a header given twice with ", "; a list here only comes from a caller that set one.
  const key = Array.isArray(value) ? value.join(', ') : value;
  if (key.length === 0) throw invalidRequest(idempotencyHeader, 'must not be empty: send a unique string such as a UUID');
  if (key.length > maxIdempotencyKeyLength) {
    throw invalidRequest(idempotencyHeader, `must be at most ${maxIdempotencyKeyLength} characters (it has ${key.length})`);
  }
  return key;
}

/** JSON with every object's keys sorted: the same body however its members were ordered. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const members = Object.keys(value)
    .filter((name) => (value as Record<string, unknown>)[name] !== undefined)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as Record<string, unknown>)[name])}`);
  return `{${members.join(',')}}`;
}

/** What makes two requests "the same" for one key: method, path with query, and the parsed body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${canonicalJson(body)}`)
    .digest('hex');
}
