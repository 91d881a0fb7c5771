import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { Context } from '../context/context.ts';
import { dashboardApiPrefix, setDashboardHeaders } from '../dashboard/dashboard-api.ts';
import { loadWebApp, type WebApp } from '../dashboard/web-routes.ts';
import { operationsRoutes } from '../health/routes.ts';
import { createAdminGuard } from '../http/admin-guard.ts';
import { closeServer } from '../http/close-server.ts';
import { createIdempotencyStore } from '../http/idempotency/idempotency-store.ts';
import { createKeyCors } from '../http/key-cors.ts';
import { buildServer, type RequestGuard } from '../http/server.ts';
import { createUnroutedV1Guard } from '../http/v1-guard.ts';
import { rpcFastRoutes } from '../rpc/fast-route.ts';
import { createSecretBox } from '../webhooks/secrets.ts';
import { createWsEndpoint, wsLimits } from '../ws/endpoint.ts';
import { adminApiRoutes } from './admin-api-routes.ts';
import { dashboardApiRoutes } from './dashboard-api-routes.ts';
import { listenError } from './listen-error.ts';
import type { ServiceParts } from './service-parts.ts';
import { v1ApiRoutes } from './v1-api-routes.ts';

export interface Listening {
  readonly app: FastifyInstance;
  /** `http://host:port` the API listens on. */
  readonly url: string;
}

/**
 * The HTTP server and the WebSocket endpoint on it, listening. Every process serves /healthz, /metrics
 * and the admin API; only the api role serves /v1, WebSockets and the dashboard.
 */
export async function wireHttp(ctx: Context, parts: ServiceParts): Promise<Listening> {
  const { config, logger, metrics, shutdown } = ctx;
  const { access, upstreams } = parts;
  const { authenticator, restrictions } = access;
  const servesApi = config.roles.includes('api');
  // Links in mails point here; the service's own URL is known once it listens.
  let publicUrl = config.dashboard.publicUrl ?? '';
  const web = servesApi ? loadWebApp({ log: logger }) : undefined;
  const app = await buildServer({
    logger,
    metrics,
    ...(web ? { pageFallback: web.page } : {}),
    fastRoutes: servesApi
      ? rpcFastRoutes({
          ...upstreams,
          authenticator,
          restrictions,
          metrics,
          usage: parts.usage.recorder,
          enhanced: parts.enhanced,
          dataQueries: parts.dataQueries,
        })
      : [],
    unroutedGuards: unroutedGuards(ctx, parts),
    corsOrigins: config.corsOrigins,
    keyCors: createKeyCors({ authenticator, restrictions }),
    trustProxy: access.trustProxy,
    compressMinBytes: config.compressMinBytes,
    bodyLimit: config.limits.maxBodyBytes,
    connectionCaps: { total: config.limits.maxConnections, perAddress: config.limits.maxConnectionsPerIp },
    idempotency: createIdempotencyStore({ db: parts.database.db, box: createSecretBox(config) }),
    plugins: routeGroups(ctx, parts, web, () => publicUrl),
  });
  shutdown.add('http server', () => closeServer(app, config.shutdownGraceS * 1000, logger));
  // Registered after the HTTP server so it closes first: open WebSockets would hold the server's close.
  if (servesApi) {
    const ws = createWsEndpoint({
      ctx,
      server: app.server,
      authenticator,
      restrictions,
      trustProxy: access.trustProxy,
      limiter: upstreams.limiter,
      chains: upstreams.chains,
      options: wsLimits(config.limits),
      enhanced: parts.enhanced,
      dataQueries: parts.dataQueries,
      usage: parts.usage.recorder,
    });
    shutdown.add('websocket endpoint', () => ws.close());
  }
  await app.listen({ host: config.host, port: config.port }).catch((error: unknown) => {
    throw listenError(error, config.host, config.port);
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  publicUrl ||= url;
  return { app, url };
}

/** Requests no route takes, guarded like the routes of their prefix (src/http/server.ts). */
function unroutedGuards(ctx: Context, parts: ServiceParts): { prefix: string; guard: RequestGuard }[] {
  const { authenticator, restrictions, adminToken } = parts.access;
  const admin = { prefix: '/admin', guard: createAdminGuard(adminToken) };
  if (!ctx.config.roles.includes('api')) return [admin];
  const v1Guard = createUnroutedV1Guard({ authenticator, restrictions, limiter: parts.upstreams.limiter, metrics: ctx.metrics });
  return [admin, { prefix: '/v1', guard: v1Guard }, { prefix: dashboardApiPrefix, guard: setDashboardHeaders }];
}

/** The server's route groups, in order; each is its own encapsulated scope. */
function routeGroups(ctx: Context, parts: ServiceParts, web: WebApp | undefined, publicUrl: () => string): FastifyPluginAsync[] {
  const { config, metrics } = ctx;
  const servesApi = config.roles.includes('api');
  const metricsGuard = config.metricsRequireAdminToken ? createAdminGuard(parts.access.adminToken) : undefined;
  const v1 = servesApi ? v1ApiRoutes(ctx, parts) : undefined;
  return [
    async (scope) => operationsRoutes(scope, { health: parts.health, metrics, metricsGuard }),
    adminApiRoutes(parts),
    dashboardApiRoutes(ctx, parts, publicUrl),
    async (scope) => {
      if (v1) await v1(scope);
    },
    // The dashboard's pages at `/` (and every path no route above takes, but the API's).
    async (scope) => {
      if (web) await web.routes(scope);
    },
  ];
}
