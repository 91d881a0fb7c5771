import { AppError } from '../core/errors.ts';
import { isUnder } from './path-prefix.ts';

/**
 * Cross-origin access (CORS) to /v1, off unless the operator lists origins (setting `cors_origins`):
 * API keys belong on servers (spec section 5), and a page that calls the API from a browser shows
 * its key to every visitor. Preflights are answered here, before authentication (browsers send them
 * without the key), and are not charged.
 */
export interface CorsPolicy {
  /** Headers for a /v1 response to a request from `origin` (none when CORS does not concern it). */
  responseHeaders(origin: string | undefined): Readonly<Record<string, string>> | undefined;
  /** Headers of the 204 answer to a preflight from `origin`, or undefined when that origin is not allowed. */
  preflightHeaders(origin: string): Readonly<Record<string, string>> | undefined;
}

/** What a page may send: the key headers, a JSON body and an idempotency key (docs/idempotency.md). */
const allowHeaders = 'content-type, x-api-key, x-alchemy-token, authorization, x-request-id, idempotency-key';
const allowMethods = 'GET, POST, PUT, PATCH, DELETE';
/** What a page may read besides the CORS-safelisted headers: the request id, the rate limits, a replay's mark. */
const exposeHeaders = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-limit-day',
  'x-ratelimit-remaining-day',
  'x-ratelimit-limit-cu',
  'x-ratelimit-remaining-cu',
  'retry-after',
  'idempotent-replayed',
].join(', ');
/** How long a browser may reuse a preflight's answer: a changed setting reaches it within 10 minutes. */
const maxAgeS = '600';

/** The policy for `origins` (exact origins, or `['*']`), or undefined when CORS is off. */
export function createCorsPolicy(origins: readonly string[]): CorsPolicy | undefined {
  if (origins.length === 0) return undefined;
  if (origins.includes('*')) {
    const response = { 'access-control-allow-origin': '*', 'access-control-expose-headers': exposeHeaders };
    const preflight = preflightFor('*', false);
    return { responseHeaders: () => response, preflightHeaders: () => preflight };
  }
  // Answers differ by Origin, so every answer says so (shared caches must not mix them up).
  const others = { vary: 'Origin' };
  const responses = new Map(origins.map((origin) => [origin, responseHeadersFor(origin)]));
  const preflights = new Map(origins.map((origin) => [origin, preflightFor(origin, true)]));
  return {
    responseHeaders: (origin) => (origin === undefined ? others : (responses.get(origin) ?? others)),
    preflightHeaders: (origin) => preflights.get(origin),
  };
}

/** The response headers for one allowed `origin` (a key's own origin list, src/http/key-cors.ts). */
export function responseHeadersFor(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, vary: 'Origin', 'access-control-expose-headers': exposeHeaders };
}

export function preflightFor(origin: string, varies: boolean): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    ...(varies ? { vary: 'Origin' } : {}),
    'access-control-allow-methods': allowMethods,
    'access-control-allow-headers': allowHeaders,
    'access-control-max-age': maxAgeS,
  };
}

/** A CORS preflight: OPTIONS with the method the page wants to use. */
export function isPreflight(method: string, headers: Record<string, unknown>): boolean {
  return method === 'OPTIONS' && headers['access-control-request-method'] !== undefined && headers.origin !== undefined;
}

/** The headers of the 204 answer to a preflight for `path`, or `forbidden` saying why there is none. */
export function answerPreflight(policy: CorsPolicy | undefined, path: string, origin: string): Readonly<Record<string, string>> {
  if (policy === undefined) {
    throw new AppError(
      'forbidden',
      'cross-origin requests are off on this server: API keys belong on servers, not in web pages (an operator can allow origins with the cors_origins setting)',
    );
  }
  if (!isUnder(path, '/v1')) throw new AppError('forbidden', 'cross-origin requests are allowed on /v1 paths only');
  const headers = policy.preflightHeaders(origin);
  if (headers === undefined) throw new AppError('forbidden', `origin ${origin} may not call this API (setting cors_origins)`);
  return headers;
}
