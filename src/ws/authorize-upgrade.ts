import type { IncomingMessage } from 'node:http';
import type { Authenticator } from '../auth/authenticator.ts';
import { apiKeyFromRequest } from '../auth/extract-key.ts';
import { apiKeyInPath, maskKeysInUrl } from '../auth/key-in-path.ts';
import { assertNetworkAccess, assertScope, type Principal } from '../auth/principal.ts';
import type { RequestFacts, RequestRestrictions } from '../auth/restrictions/request-restrictions.ts';
import { networkKey } from '../chains/network-key.ts';
import type { ChainRegistry, Network } from '../chains/registry.ts';
import { AppError, notFound } from '../core/errors.ts';
import { decodeUnreserved } from '../core/unreserved-escapes.ts';
import { clientAddress, type TrustProxy } from '../http/client-address.ts';
import { type ChargedBudget, consumeBudgets, rateLimitMessage } from '../limits/charge-budgets.ts';
import type { RateLimiter } from '../limits/limiter.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { UsageRecorder } from '../usage/recorder.ts';
import { statusClassOf } from '../usage/status-class.ts';

export interface UpgradeAuthDeps {
  authenticator: Authenticator;
  limiter: RateLimiter;
  chains: ChainRegistry;
  metrics: Metrics;
  /** The key's origins, client addresses and signed requests (a Bearer JWT on the upgrade request). */
  restrictions: RequestRestrictions;
  /** Setting `trust_proxy`: whose X-Forwarded-For is believed for the client's address. */
  trustProxy?: TrustProxy;
  /** Counts each authenticated upgrade for `GET /v1/usage`; absent: not counted. */
  usage?: UsageRecorder;
}

/** The usage table's method for opening a socket (its calls count under their own methods). */
const upgradeUsageMethod = '(websocket)';

/** As for HTTP (src/http/v1-guard.ts): refused authentications spend a per-address budget. */
const anonymousLimits = { rps: 20, rpd: null, cups: null };
/**
 * `/v1/ws/{chain}/{network}`, or with the key: `/v1/ws/{chain}/{network}/{apiKey}`; and the same on the
 * JSON-RPC path `/v1/rpc/...`, where the providers serve WebSocket too (alchemy-sdk's `ws` opens its socket
 * on the URL it was given).
 */
const wsPath = /^\/v1\/(?:ws|rpc)\/([^/]+)\/([^/]+)(?:\/([^/]+))?\/?$/;

/**
 * Decides an upgrade request before any WebSocket exists, with the HTTP API's rules and messages:
 * 404 unknown path, chain or network; 401 missing or bad key (in the path, `?apiKey=`, X-API-Key or Bearer);
 * 401/403 refused by the key's restrictions (a browser sends Origin on an upgrade; it cannot send a
 * Bearer JWT); 403 wrong environment or no rpc:read; 429 over the limits (opening a connection is one request).
 */
export async function authorizeUpgrade(
  deps: UpgradeAuthDeps,
  request: IncomingMessage,
): Promise<{ principal: Principal; network: Network; key: string; facts: RequestFacts }> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  // Read as the HTTP router reads a path: `/%761/ws/…/%73vc_test_…` is `/v1/ws/…/svc_test_…`.
  const match = wsPath.exec(decodeUnreserved(url.pathname));
  if (!match) throw notFound(`no route GET ${maskKeysInUrl(url.pathname)}`);
  const ip = clientAddress(request, deps.trustProxy);
  let principal: Principal;
  const key = apiKeyFromRequest(request.headers, {
    path: match[3] === undefined ? undefined : apiKeyInPath(url.pathname),
    query: url.searchParams.get('apiKey') ?? undefined,
  });
  try {
    principal = await deps.authenticator.authenticate(key);
  } catch (error) {
    // As for /v1 (src/http/v1-guard.ts): a key unchecked for a database outage was not refused.
    const unchecked = error instanceof AppError && error.code === 'service_unavailable';
    if (!unchecked) await charge(deps, { accountId: `ip:${ip}`, limits: anonymousLimits });
    throw error;
  }
  const facts: RequestFacts = { headers: request.headers, ip };
  let network: Network | undefined;
  try {
    await deps.restrictions.check(principal, facts);
    network = deps.chains.get(match[1]!, match[2]!);
    assertNetworkAccess(principal, network.config);
    assertScope(principal, 'rpc:read');
    await charge(deps, principal);
    deps.usage?.record(principal.accountId, principal.keyId, where(network), upgradeUsageMethod, '2xx', 0);
    // Authenticated, so a key was given.
    return { principal, network, key: key!, facts };
  } catch (error) {
    // A refusal is a request too: when it is one too many, the answer is the rate limit's.
    const answered =
      error instanceof AppError && error.code !== 'rate_limited'
        ? await charge(deps, principal).then(
            () => error,
            (limited: unknown) => limited,
          )
        : error;
    const status = answered instanceof AppError ? answered.status : 500;
    deps.usage?.record(principal.accountId, principal.keyId, where(network), upgradeUsageMethod, statusClassOf(status), 0);
    throw answered;
  }
}

/** As the HTTP endpoint counts: `chain/network`, or '' before the network is known. */
const where = (network: Network | undefined): string => (network === undefined ? '' : networkKey(network));

/** Opening a connection is one request of 0 CU, to the account and the key's own limits (when it has them). */
async function charge(deps: UpgradeAuthDeps, budget: ChargedBudget) {
  const decision = await consumeBudgets(deps.limiter, budget, 0);
  if (decision.allowed) return;
  deps.metrics.rateLimited.inc({ limit: decision.exceeded ?? 'rps' });
  throw new AppError('rate_limited', rateLimitMessage(decision), {
    headers: { 'retry-after': String(decision.retryAfterS ?? 1) },
  });
}
