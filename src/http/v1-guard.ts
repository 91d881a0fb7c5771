import type { onRequestHookHandler } from 'fastify';
import type { Authenticator } from '../auth/authenticator.ts';
import { apiKeyFromRequest } from '../auth/extract-key.ts';
import type { Principal } from '../auth/principal.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import { chargeRequest } from './charge.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the /v1 guard before any /v1 handler runs. */
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** Compute units a REST route costs, charged before validation. Routes without it charge in their handler (JSON-RPC). */
    computeUnits?: number;
  }
}

/** Refused authentications spend a per-address budget, so guessing keys is throttled too. */
const anonymousLimits = { rps: 20, rpd: null, cups: null };

/** Authenticates every /v1 request (401 before anything else) and charges REST routes. */
export function createV1Guard(deps: {
  authenticator: Authenticator;
  limiter: RateLimiter;
  metrics: Metrics;
}): onRequestHookHandler {
  return async (request, reply) => {
    let principal: Principal;
    try {
      principal = await deps.authenticator.authenticate(apiKeyFromRequest(request.headers));
    } catch (error) {
      await chargeRequest(deps, reply, { accountId: `ip:${request.ip}`, limits: anonymousLimits }, 0);
      throw error;
    }
    request.principal = principal;
    const computeUnits = request.routeOptions.config.computeUnits;
    if (computeUnits !== undefined) await chargeRequest(deps, reply, principal, computeUnits);
  };
}
