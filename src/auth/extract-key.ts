import type { IncomingHttpHeaders } from 'node:http';
import { unauthorized } from '../core/errors.ts';

/** Where else than the headers a request may carry its key. */
export interface KeyOutsideHeaders {
  /** The URL form: `/v1/{rpc|bundler|ws}/{chain}/{network}/{apiKey}` (src/auth/key-in-path.ts). */
  readonly path?: string;
  /** WebSocket upgrades: the `apiKey` query parameter. */
  readonly query?: string;
}

/** A JSON Web Token: three base64url parts (the signature may be empty only in unsigned tokens, which no key accepts). */
const jwtShape = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The API key of a request: `X-API-Key: <key>`, `Authorization: Bearer <key>` or Alchemy Notify's
 * `X-Alchemy-Token: <key>` (equivalent), the
 * path of the URL form, or for WebSocket upgrades the `apiKey` query parameter. Two different keys in
 * one request are refused; the same key twice is one key. A Bearer value shaped like a JWT (keys have
 * no dots) is a signed request's token, not a key (`jwtFromRequest`).
 */
export function apiKeyFromRequest(headers: IncomingHttpHeaders, outside: KeyOutsideHeaders = {}): string | undefined {
  const fromHeader = headerValue(headers['x-api-key']);
  const fromAlchemyToken = headerValue(headers['x-alchemy-token']);
  const bearer = bearerValue(headers);
  const fromBearer = bearer !== undefined && jwtShape.test(bearer) ? undefined : bearer;
  const found = [outside.path, fromHeader, fromAlchemyToken, fromBearer, outside.query].filter(
    (key): key is string => key !== undefined && key !== '',
  );
  if (found.some((key) => key !== found[0])) throw unauthorized('the request carries two different API keys');
  return found[0];
}

/** The JWT of a signed request (`Authorization: Bearer <JWT>`, sent besides the key), or undefined. */
export function jwtFromRequest(headers: IncomingHttpHeaders): string | undefined {
  const bearer = bearerValue(headers);
  return bearer !== undefined && jwtShape.test(bearer) ? bearer : undefined;
}

function bearerValue(headers: IncomingHttpHeaders): string | undefined {
  const authorization = headerValue(headers.authorization);
  if (authorization === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw unauthorized('malformed Authorization header: expected "Bearer <API key>" or "Bearer <JWT>"');
  return match[1];
}

function headerValue(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) {
    if (value.length > 1) throw unauthorized('the request carries more than one API key header');
    return value[0]?.trim();
  }
  return value?.trim();
}
