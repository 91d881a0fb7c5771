import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync, LogController } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../core/errors.ts';
import type { Metrics } from '../observability/metrics.ts';
import { errorHandler } from './error-handler.ts';
import { createFastDispatch, type FastRoute, shuttingDown } from './fast-route.ts';
import { openApiInfo } from './openapi.ts';

export interface ServerOptions {
  logger: Logger;
  metrics: Metrics;
  /** Route groups, registered in order; each is its own encapsulated scope. */
  plugins: FastifyPluginAsync[];
  /** Routes answered before Fastify (each also declared in a plugin, for OpenAPI and the request forms it leaves). */
  fastRoutes?: FastRoute[];
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's X-Request-Id when it is a plain token, else a new one: it goes into logs and headers. */
function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}

/** The HTTP server: request ids, error mapping, metrics, OpenAPI and /docs, then the route groups. */
export async function buildServer({ logger, metrics, plugins, fastRoutes = [] }: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // One log line per request, written in onResponse below, instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // No requestIdHeader: Fastify would take the header as it is, unchecked, before genReqId.
    genReqId: requestIdOf,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
    forceCloseConnections: 'idle',
    // Refused in our own error format by the hook below instead.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true },
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request) => {
    throw new AppError('not_found', `no route ${request.method} ${request.url.split('?')[0]}`);
  });

  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.header('connection', 'close');
      throw shuttingDown();
    }
  });
  // A response finishing while the server drains closes its connection, so close() need not wait
  // for the client's keep-alive to time out.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    if (logger.isLevelEnabled('info'))
      request.log.info({ req: request, res: reply, ms: Math.round(reply.elapsedTime * 100) / 100 }, 'request');
  });

  await app.register(fastifySwagger, { openapi: openApiInfo });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  for (const plugin of plugins) await app.register(plugin);
  if (fastRoutes.length > 0) {
    const dispatch = createFastDispatch({
      routes: fastRoutes,
      metrics,
      logger,
      requestId: requestIdOf,
      isClosing: () => closing,
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
  return app;
}
