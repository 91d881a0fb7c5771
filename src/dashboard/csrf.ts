import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { forbidden } from '../core/errors.ts';

const stateChanging = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function changesState(method: string): boolean {
  return stateChanging.has(method);
}

function sameToken(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The origins a dashboard page may send from: the public URL's, and the one the request was addressed
 * to (its Host, with the scheme the service sees), so a proxy in front need not be configured twice.
 */
function allowedOrigins(request: FastifyRequest, publicOrigin: string | undefined): string[] {
  const own = request.headers.host ? `${request.protocol}://${request.headers.host}` : undefined;
  return [publicOrigin, own].filter((origin): origin is string => origin !== undefined);
}

/** `x-csrf-token` equal to the session's, and an Origin (when sent) that is the service's own; else 403. */
export function assertCsrf(request: FastifyRequest, csrfToken: string, publicOrigin: string | undefined): void {
  const header = request.headers['x-csrf-token'];
  const origin = request.headers.origin;
  const tokenOk = typeof header === 'string' && sameToken(header, csrfToken);
  const originOk = origin === undefined || allowedOrigins(request, publicOrigin).includes(origin);
  if (!tokenOk || !originOk) throw forbidden('CSRF token missing or wrong');
}
