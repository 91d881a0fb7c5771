import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { maskKeysInUrl } from '../auth/key-in-path.ts';
import { AppError } from '../core/errors.ts';
import { decodeUnreserved } from '../core/unreserved-escapes.ts';
import { type AccessLog, createAccessLog } from '../observability/access-log.ts';
import type { Metrics } from '../observability/metrics.ts';
import { nameRequestSpan, type RequestListener, traceRequests, tracingOn } from '../tracing/tracing.ts';
import { defaultRestBodyLimit } from './body-limits.ts';
import { plainAddress, type TrustProxy } from './client-address.ts';
import { handleClientError } from './client-error.ts';
import { type ConnectionCaps, defaultConnectionCaps, enforceConnectionCaps } from './connection-caps.ts';
import { answerPreflight, type CorsPolicy, createCorsPolicy, isPreflight } from './cors.ts';
import { docsPages } from './docs-pages.ts';
import { refuseEncodedBody } from './encoded-body.ts';
import { errorHandler } from './error-handler.ts';
import { createFastDispatch, type FastRoute, shuttingDown } from './fast-route.ts';
import type { IdempotencyStore } from './idempotency/idempotency-store.ts';
import { idempotentRoutes } from './idempotency/idempotent-routes.ts';
import { checkRequestInput, refuseUnexpectedBody } from './input-rules.ts';
import { readJsonBodiesStrictly } from './json-body.ts';
import type { KeyCors } from './key-cors.ts';
import { indexRouteMethods, type MethodIndex, methodNotAllowed } from './method-index.ts';
import { openApiInfo, publishRouteScope } from './openapi.ts';
import { isUnder } from './path-prefix.ts';
import { compressingOnSend } from './response-compression.ts';
import { defaultHttpTimeouts, type HttpTimeouts } from './timeouts.ts';

/** Checks a request before its handler (authentication, charging); throws to refuse it. */
export type RequestGuard = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export interface ServerOptions {
  logger: Logger;
  metrics: Metrics;
  /** Route groups, registered in order; each is its own encapsulated scope. */
  plugins: FastifyPluginAsync[];
  /** Routes answered before Fastify (each also declared in a plugin, for OpenAPI and the request forms it leaves). */
  fastRoutes?: FastRoute[];
  /**
   * Requests no route takes (unknown path, malformed percent-encoding, a path parameter over 100
   * characters) go through the guard of their path prefix before they get their 404, 400 or 414:
   * authenticated and charged like the routes below that prefix, their answers carry the same headers.
   */
  unroutedGuards?: readonly { prefix: string; guard: RequestGuard }[];
  /** Origins browsers may call /v1 from (`['*']`: any); empty: CORS is off (see cors.ts). */
  corsOrigins?: readonly string[];
  /** Preflights to a URL-form key's path follow that key's origins (src/http/key-cors.ts); absent: `corsOrigins` alone. */
  keyCors?: KeyCors;
  /** Setting `trust_proxy`: the proxies whose X-Forwarded-For decides `request.ip` (src/http/client-address.ts). */
  trustProxy?: TrustProxy;
  timeouts?: Partial<HttpTimeouts>;
  /** Largest body a route takes unless it sets its own `bodyLimit` (src/http/body-limits.ts). */
  bodyLimit?: number;
  connectionCaps?: Partial<ConnectionCaps>;
  /** Where routes with `config.idempotent` keep their Idempotency-Key answers; absent: the header is ignored. */
  idempotency?: IdempotencyStore;
  /** Answers at least this long are compressed for clients that accept it (src/http/response-compression.ts); 0 or absent: never. */
  compressMinBytes?: number;
  /** Answers a GET no route takes with a page (the dashboard's single-page app), or returns false. */
  pageFallback?: (request: FastifyRequest, reply: FastifyReply) => boolean;
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is a plain token, else a new one: it goes into logs and headers. */
function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}

/** The HTTP server: request ids, error mapping, metrics, OpenAPI and /docs, then the route groups. */
export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const server: ServerState = {
    options,
    unroutedGuards: options.unroutedGuards ?? [],
    cors: createCorsPolicy(options.corsOrigins ?? []),
    accessLog: createAccessLog(options.logger),
    closing: false,
    methods: undefined,
  };
  const app = createFastify(server);
  server.methods = indexRouteMethods(app);
  enforceConnectionCaps(app.server, { ...defaultConnectionCaps, ...options.connectionCaps });
  app.setErrorHandler(errorHandler);
  readJsonBodiesStrictly(app);
  addRequestHooks(app, server);
  await registerDocs(app);
  for (const plugin of options.plugins) await app.register(plugin);
  if (options.fastRoutes !== undefined && options.fastRoutes.length > 0) putFastRoutesInFront(app, server, options.fastRoutes);
  if (tracingOn()) traceServerRequests(app);
  return app;
}

/** What the server's hooks share: set up once, `closing` from preClose on. */
interface ServerState {
  readonly options: ServerOptions;
  readonly unroutedGuards: NonNullable<ServerOptions['unroutedGuards']>;
  readonly cors: CorsPolicy | undefined;
  readonly accessLog: AccessLog;
  closing: boolean;
  /** Set once the server exists: which methods each path answers (405 instead of 404). */
  methods: MethodIndex | undefined;
}

function createFastify(server: ServerState): FastifyInstance {
  const { options } = server;
  const timeouts = { ...defaultHttpTimeouts, ...options.timeouts };
  return Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // One log line per request, written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // No requestIdHeader: Fastify would take the header as it is, unchecked, before genReqId.
    genReqId: requestIdOf,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
    forceCloseConnections: 'idle',
    bodyLimit: options.bodyLimit ?? defaultRestBodyLimit,
    trustProxy: options.trustProxy ?? false,
    // Refused in our own error format by the hook below instead.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    },
    clientErrorHandler: handleClientError,
    frameworkErrors: (error, request, reply) => void answerUnroutable(server, error, request, reply),
  });
}

/*
 * The path's prefix is judged as the router reads it, percent-encoded unreserved characters decoded
 * (src/core/unreserved-escapes.ts): `/%761/nothing` is under /v1 as `/v1/nothing` is.
 */
async function guardUnrouted(server: ServerState, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const url = decodeUnreserved(request.url);
  for (const { prefix, guard } of server.unroutedGuards) if (isUnder(url, prefix)) return guard(request, reply);
}

function addCorsHeaders(server: ServerState, request: FastifyRequest, reply: FastifyReply): void {
  if (server.cors === undefined || !isUnder(decodeUnreserved(request.url), '/v1')) return;
  const headers = server.cors.responseHeaders(request.headers.origin);
  if (headers !== undefined) reply.headers(headers);
}

function recordRequest(server: ServerState, request: FastifyRequest, reply: FastifyReply, ms: number): void {
  const { metrics } = server.options;
  const route = request.routeOptions.url ?? 'unmatched';
  metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
  metrics.httpDuration.observe({ method: request.method, route }, ms / 1000);
  if (server.accessLog.enabled) {
    server.accessLog.write({
      reqId: request.id,
      method: request.method,
      url: request.url,
      ip: plainAddress(request.ip),
      status: reply.statusCode,
      ms,
    });
  }
}

// The router refused the URL before any hook could run: what the hooks below do, done here.
async function answerUnroutable(server: ServerState, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const started = performance.now();
  reply.raw.once('finish', () => recordRequest(server, request, reply, performance.now() - started));
  reply.header('x-request-id', request.id);
  if (server.closing) reply.header('connection', 'close');
  addCorsHeaders(server, request, reply);
  let answer: Error = error;
  try {
    await guardUnrouted(server, request, reply);
  } catch (refused) {
    answer = refused as Error;
  }
  errorHandler(answer, request, reply);
}

function addRequestHooks(app: FastifyInstance, server: ServerState): void {
  const { options } = server;
  app.setNotFoundHandler(async (request, reply) => {
    const allowed = server.methods?.allowedMethods(request.url) ?? [];
    if (allowed.length === 0 && options.pageFallback?.(request, reply)) return reply;
    await guardUnrouted(server, request, reply);
    const path = maskKeysInUrl(request.url.split('?')[0]!);
    if (allowed.length > 0 && !allowed.includes(request.method)) throw methodNotAllowed(request.method, path, allowed);
    throw new AppError('not_found', `no route ${request.method} ${path}`);
  });

  app.addHook('preClose', async () => {
    server.closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // Named here, once routed: the span may end before onResponse hooks run.
    if (request.routeOptions.url !== undefined) nameRequestSpan(request.raw, request.routeOptions.url);
    const preflight = isPreflight(request.method, request.headers);
    if (!preflight) addCorsHeaders(server, request, reply);
    if (server.closing) {
      reply.header('connection', 'close');
      throw shuttingDown();
    }
    if (preflight) {
      const origin = request.headers.origin as string;
      const headers =
        (await options.keyCors?.preflightHeaders(request.url, origin)) ?? answerPreflight(server.cors, request.url, origin);
      return reply.code(204).headers(headers).send();
    }
  });
  app.addHook('preParsing', refuseEncodedBody);
  app.addHook('preParsing', refuseUnexpectedBody);
  app.addHook('preValidation', checkRequestInput);
  // A response finishing while the server drains closes its connection, so close() need not wait
  // for the client's keep-alive to time out.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (server.closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => recordRequest(server, request, reply, reply.elapsedTime));
  if (options.idempotency) app.addHook('onRoute', idempotentRoutes(options.idempotency));
  // Last of every route's onSend steps, so the steps before it (the idempotency store) see the text.
  const compress = compressingOnSend(options.compressMinBytes ?? 0);
  app.addHook('onRoute', (route) => {
    const steps = route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend];
    route.onSend = [...steps, compress] as never;
  });
}

async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, { openapi: openApiInfo, transform: publishRouteScope });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  await app.register(docsPages);
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

function putFastRoutesInFront(app: FastifyInstance, server: ServerState, routes: FastRoute[]): void {
  const { options } = server;
  const dispatch = createFastDispatch({
    routes,
    metrics: options.metrics,
    logger: options.logger,
    accessLog: server.accessLog,
    requestId: requestIdOf,
    isClosing: () => server.closing,
    cors: server.cors,
    trustProxy: options.trustProxy,
    compressMinBytes: options.compressMinBytes,
  });
  // Fastify's handler is the server's one 'request' listener; the fast routes go in front of it.
  const [fastifyHandler, ...others] = app.server.listeners('request') as ((...args: unknown[]) => void)[];
  if (fastifyHandler && others.length === 0) {
    app.server.removeListener('request', fastifyHandler);
    app.server.on('request', (req, res) => {
      if (!dispatch(req, res)) fastifyHandler(req, res);
    });
  }
}

/** Every request (fast routes and Fastify's) in a server span: the one 'request' listener, wrapped. */
function traceServerRequests(app: FastifyInstance): void {
  const [listener, ...others] = app.server.listeners('request') as RequestListener[];
  if (listener === undefined || others.length > 0) return;
  app.server.removeListener('request', listener);
  app.server.on('request', traceRequests(listener));
}
