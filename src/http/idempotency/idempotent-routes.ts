import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { AppError, invalidRequest } from '../../core/errors.ts';
import type { IdempotencyStore, KeyClaim } from './idempotency-store.ts';
import { idempotencyHeader, parseIdempotencyKey, requestFingerprint } from './request-fingerprint.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that creates: it honours `Idempotency-Key` (src/http/idempotency, docs/idempotency.md). */
    idempotent?: boolean;
  }
}

/**
 * Whose key it is: the account of an API key or a dashboard session's /v1 call, the signed-in user on
 * the dashboard's own routes, else the admin token (its hash: the token itself is never stored).
 */
function ownerOf(request: FastifyRequest): string | undefined {
  if (request.principal) return `account:${request.principal.accountId}`;
  if (request.dashboard) return `user:${request.dashboard.user.id}`;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  return bearer === undefined ? undefined : `admin:${createHash('sha256').update(bearer).digest('hex')}`;
}

const inUse = () =>
  new AppError(
    'idempotency_key_in_use',
    `a request with this ${idempotencyHeader} is still running; retry it after a moment to get its answer`,
    { headers: { 'retry-after': '1' } },
  );

const otherRequest = () =>
  invalidRequest(
    idempotencyHeader,
    'was already used with another request (method, path or body) in the last 24 hours; send a new key for a new request',
  );

type Hook<T extends unknown[]> = (request: FastifyRequest, reply: FastifyReply, ...rest: T) => unknown;
const hooksOf = <T extends unknown[]>(given: Hook<T> | Hook<T>[] | undefined): Hook<T>[] =>
  given === undefined ? [] : Array.isArray(given) ? given : [given];

/**
 * An `onRoute` hook that gives every route with `config.idempotent` Stripe's idempotent requests: the
 * first request with a key runs and its answer (status and body) is kept for 24 h; the same request
 * again gets that answer with `Idempotent-Replayed: true`; another request with the key is a 400; the
 * same one while the first runs is a 409 to retry. A key is claimed after authentication and
 * validation (a refused request leaves it free), and a 5xx frees it again: only answers of requests
 * that ran are kept.
 */
export function idempotentRoutes(store: IdempotencyStore): (route: RouteOptions) => void {
  const held = new WeakMap<FastifyRequest, KeyClaim>();

  const claimKey = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined) return;
    const owner = ownerOf(request);
    if (owner === undefined) return;
    const claim = { owner, key, fingerprint: requestFingerprint(request.method, request.url, request.body) };
    const outcome = await store.claim(claim);
    if (outcome.kind === 'mismatch') throw otherRequest();
    if (outcome.kind === 'running') throw inUse();
    if (outcome.kind === 'claimed') {
      held.set(request, claim);
      return;
    }
    return reply
      .code(outcome.status)
      .header('idempotent-replayed', 'true')
      .type('application/json; charset=utf-8')
      .send(outcome.body);
  };

  const keepAnswer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = held.get(request);
    if (claim === undefined) return payload;
    held.delete(request);
    try {
      if (reply.statusCode >= 500 || typeof payload !== 'string') await store.release(claim);
      else await store.finish(claim, reply.statusCode, payload);
    } catch (error) {
      // The answer still goes out; the key stays running until it counts as abandoned.
      request.log.warn({ err: error }, `could not keep the answer of an ${idempotencyHeader} request`);
    }
    return payload;
  };

  return (route) => {
    if (!route.config?.idempotent) return;
    route.preHandler = [...hooksOf(route.preHandler as Hook<[]> | Hook<[]>[] | undefined), claimKey] as never;
    route.onSend = [...hooksOf(route.onSend as Hook<[unknown]> | Hook<[unknown]>[] | undefined), keepAnswer] as never;
  };
}
