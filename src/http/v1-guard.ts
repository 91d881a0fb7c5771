import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import type { Authenticator } from '../auth/authenticator.ts';
import { apiKeyFromRequest } from '../auth/extract-key.ts';
import { apiKeyInPath } from '../auth/key-in-path.ts';
import { assertScope, type Principal } from '../auth/principal.ts';
import type { RequestRestrictions } from '../auth/restrictions/request-restrictions.ts';
import type { Scope } from '../auth/scopes.ts';
import { isAppError } from '../core/errors.ts';
import type { DataQuerySlots } from '../limits/data-query-slots.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import { chargeRequest, type HeaderSink } from './charge.ts';
import { plainAddress } from './client-address.ts';
import { addKeyCorsHeaders } from './key-cors.ts';
import { releaseOnClose } from './release-on-close.ts';
import { assertRouteAllowed } from './route-restrictions.ts';
import type { RequestGuard } from './server.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the /v1 guard before any /v1 handler runs. */
    principal?: Principal;
    /** What the request was charged (by the guard, or by a route that charges per call: the bundler), for the usage count. */
    computeUnitsCharged?: number;
  }
  interface FastifyContextConfig {
    /** Compute units a REST route costs, charged before validation. Routes without it charge in their handler (JSON-RPC). */
    computeUnits?: number;
    /**
     * The cost of this request when a query parameter changes the work (getNFTMetadata with
     * `refreshCache=true` fetches again); read from the raw query string, before validation.
     */
    computeUnitsOf?: (query: Record<string, unknown>) => number;
    /**
     * The scope an API key needs for this route, checked by the /v1 guard after authentication and
     * published as the operation's `x-scope` (docs/scopes.md is generated from it). JSON-RPC routes
     * have none: their methods map to scopes one by one (src/rpc/method-policy.ts).
     */
    scope?: Scope;
    /** The route reads the index's large tables (transfers, holdings, NFT ownership): it takes one of the account's data-query slots. */
    dataQuery?: boolean;
  }
}

export interface V1GuardDeps {
  authenticator: Authenticator;
  limiter: RateLimiter;
  metrics: Metrics;
  /** The key's origins, client addresses and signed requests (issue 24), checked after authentication. */
  restrictions: RequestRestrictions;
  /** The per-account cap on data queries running at once, taken by routes marked `dataQuery`; absent: no cap. */
  dataQueries?: DataQuerySlots;
}

/** Refused authentications spend a per-address budget, so guessing keys is throttled too (not keys unchecked for an outage). */
const anonymousLimits = { rps: 20, rpd: null, cups: null };

/**
 * The caller of a /v1 request, or `unauthorized` (after spending the client address's budget, whose
 * headers go on the refusal). Shared by the guard below and the JSON-RPC fast path. `pathKey`: the key
 * of the URL form (`/v1/rpc/{chain}/{network}/{apiKey}`); a different key in a header is refused.
 * Then the key's request-level restrictions: a refused request counts as one request of 0 compute
 * units, as a missing scope does. `ip`: the client's address (src/http/client-address.ts).
 */
export async function authenticateV1(
  deps: V1GuardDeps,
  headers: IncomingHttpHeaders,
  ip: string | undefined,
  reply: HeaderSink,
  pathKey?: string,
): Promise<Principal> {
  const principal = await authenticateKey(deps, headers, ip, reply, pathKey);
  if (principal.restrictions === undefined) return principal;
  try {
    const pending = deps.restrictions.check(principal, { headers, ip });
    if (pending !== undefined) await pending;
  } catch (error) {
    await chargeRequest(deps, reply, principal, 0);
    throw error;
  }
  if (pathKey !== undefined) addKeyCorsHeaders(deps.restrictions, principal, headers.origin, reply);
  return principal;
}

async function authenticateKey(
  deps: V1GuardDeps,
  headers: IncomingHttpHeaders,
  ip: string | undefined,
  reply: HeaderSink,
  pathKey: string | undefined,
): Promise<Principal> {
  try {
    return await deps.authenticator.authenticate(apiKeyFromRequest(headers, { path: pathKey }));
  } catch (error) {
    // A key that could not be checked (the database is down: 503) was not refused: charging the
    // address for it turned an outage into 429s for every client behind one address (a load balancer).
    if (!(isAppError(error) && error.code === 'service_unavailable')) {
      await chargeRequest(deps, reply, { accountId: `ip:${ip}`, limits: anonymousLimits }, 0);
    }
    throw error;
  }
}

/** Authenticates every /v1 request (401 before anything else), charges REST routes, then checks the route's scope (403). */
export function createV1Guard(deps: V1GuardDeps): RequestGuard {
  return async (request, reply) => {
    const { apiKey } = request.params as { apiKey?: string };
    const principal = await authenticateV1(deps, request.headers, plainAddress(request.ip), reply, apiKey);
    request.principal = principal;
    const { computeUnitsOf, scope } = request.routeOptions.config;
    const computeUnits =
      computeUnitsOf?.((request.query ?? {}) as Record<string, unknown>) ?? request.routeOptions.config.computeUnits;
    // A key without the scope, or one its methods/contracts refuse, is counted as one request of 0
    // compute units (docs/compute-units.md), as a refused JSON-RPC call is: the charge comes first so
    // a key over its limits still gets the 429 (the limits are checked before the scope).
    const refusal = routeRefusal(principal, request, scope);
    if (refusal !== undefined) {
      request.computeUnitsCharged = 0;
      await chargeRequest(deps, reply, principal, 0);
      throw refusal;
    }
    // Before the charge: a request refused for the account's running data queries spends nothing.
    if (request.routeOptions.config.dataQuery && deps.dataQueries !== undefined) {
      let release: () => void;
      try {
        release = await deps.dataQueries.take(principal.accountId);
      } catch (error) {
        await chargeRequest(deps, reply, principal, 0); // counted as a request (its limit headers), no compute units
        throw error;
      }
      // 'close' comes when the answer is sent or the connection ends first.
      releaseOnClose(reply.raw, release);
    }
    if (computeUnits !== undefined) {
      // Refused by the charge (429, or 400 for a cost over the CU/s budget): nothing was spent.
      request.computeUnitsCharged = 0;
      await chargeRequest(deps, reply, principal, computeUnits);
      request.computeUnitsCharged = computeUnits;
    }
  };
}

/** Why the route refuses this key (its scope, its `methods` or `contracts`), or undefined when it may use it. */
function routeRefusal(principal: Principal, request: FastifyRequest, scope: Scope | undefined): unknown {
  try {
    if (scope !== undefined) assertScope(principal, scope);
    assertRouteAllowed(principal, request);
    return undefined;
  } catch (error) {
    return error;
  }
}

/**
 * For a /v1 request no route takes (unknown path, bad URL): authenticated like the others (401
 * first, the key of a URL-form path included), then counted as one request of 0 compute units, so
 * its 404/400/414 carries the limit headers every /v1 answer has, and a client cannot send such
 * requests past its limits.
 */
export function createUnroutedV1Guard(deps: V1GuardDeps): RequestGuard {
  return async (request, reply) => {
    const principal = await authenticateV1(deps, request.headers, plainAddress(request.ip), reply, apiKeyInPath(request.url));
    await chargeRequest(deps, reply, principal, 0);
  };
}
