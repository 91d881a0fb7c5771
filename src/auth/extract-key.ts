import type { IncomingHttpHeaders } from 'node:http';
import { unauthorized } from '../core/errors.ts';

/**
 * The API key of a request: `X-API-Key: <key>` or `Authorization: Bearer <key>` (equivalent), or for
 * WebSocket upgrades the `apiKey` query parameter. Two different keys in one request are refused.
 */
export function apiKeyFromRequest(headers: IncomingHttpHeaders, queryApiKey?: string): string | undefined {
  const fromHeader = headerValue(headers['x-api-key']);
  const authorization = headerValue(headers.authorization);
  let fromBearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw unauthorized('malformed Authorization header: expected "Bearer <API key>"');
    fromBearer = match[1];
  }
  const found = [fromHeader, fromBearer, queryApiKey].filter((key): key is string => key !== undefined && key !== '');
  if (found.some((key) => key !== found[0])) throw unauthorized('the request carries two different API keys');
  return found[0];
}

function headerValue(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) {
    if (value.length > 1) throw unauthorized('the request carries more than one API key header');
    return value[0]?.trim();
  }
  return value?.trim();
}
