import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AppError, errorBody } from '../core/errors.ts';
import type { AccessLog } from '../observability/access-log.ts';
import type { CounterChild, HistogramChild, Metrics } from '../observability/metrics.ts';
import { inRequestContext, nameRequestSpan, tracingOn } from '../tracing/tracing.ts';
import type { TrustProxy } from './client-address.ts';
import type { CorsPolicy } from './cors.ts';
import { toAppError } from './error-handler.ts';
import { FastExchange } from './fast-exchange.ts';
import { isUnder } from './path-prefix.ts';
import { acceptedCoding, type ContentCoding, compressBody, varyOnEncoding } from './response-compression.ts';

/**
 * A route answered on Node's own request objects before Fastify sees the request: for the one path
 * hot enough for Fastify's per-request work (routing, hooks, reply, child logger) to matter. The same
 * route stays declared in Fastify (OpenAPI, and every request form `match` leaves to it), both calling
 * the same logic, and everything around it (request id, shutdown refusal, error mapping, headers,
 * metrics, the log line) is what server.ts does for Fastify routes.
 */
export interface FastRoute {
  readonly method: string;
  /** The route as declared in Fastify: the metrics label. */
  readonly url: string;
  /** The path parameters when this route takes the request, else undefined (Fastify answers it). */
  match(url: string, req: IncomingMessage): readonly string[] | undefined;
  /** The JSON text to answer with ('' = 204 No Content); errors are thrown and mapped like Fastify's. */
  handle(exchange: FastExchange): Promise<string>;
}

export interface FastDispatchOptions {
  routes: readonly FastRoute[];
  metrics: Metrics;
  logger: Logger;
  /** The per-request line, the same for Fastify's routes. */
  accessLog: AccessLog;
  requestId(req: IncomingMessage): string;
  isClosing(): boolean;
  /** CORS for /v1 routes, as the Fastify routes have it; absent: off. */
  cors?: CorsPolicy;
  /** Setting `trust_proxy`, as Fastify's `trustProxy` has it. */
  trustProxy?: TrustProxy;
  /** Answers at least this long are compressed for clients that accept it (response-compression.ts); 0: never. */
  compressMinBytes?: number;
}

const jsonType = 'application/json; charset=utf-8';

/** The error every request gets while the server drains. */
export function shuttingDown(): AppError {
  return new AppError('service_unavailable', 'the server is shutting down; retry shortly or on another instance');
}

interface BoundRoute {
  readonly route: FastRoute;
  readonly duration: HistogramChild;
  readonly byStatus: Map<number, CounterChild>;
  /** Undefined when CORS is off or does not concern the route: then it costs nothing. */
  readonly cors: CorsPolicy | undefined;
}

/** A `request` listener's front: answers (and returns true) when a fast route takes the request. */
export function createFastDispatch(options: FastDispatchOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { metrics, logger, accessLog, isClosing } = options;
  const routes: BoundRoute[] = options.routes.map((route) => ({
    route,
    duration: metrics.httpDuration.labels(route.method, route.url),
    byStatus: new Map(),
    cors: isUnder(route.url, '/v1') ? options.cors : undefined,
  }));

  const compressMinBytes = options.compressMinBytes ?? 0;

  const finish = (bound: BoundRoute, exchange: FastExchange, status: number, text: string) => {
    if (status !== 200 || compressMinBytes <= 0 || text.length < compressMinBytes) return send(bound, exchange, status, text);
    exchange.responseHeaders.vary = varyOnEncoding(exchange.responseHeaders.vary);
    const coding = acceptedCoding(exchange.req.headers['accept-encoding']);
    if (coding === undefined) return send(bound, exchange, status, text);
    compressBody(text, coding).then(
      (body) => send(bound, exchange, status, body, coding),
      // Not compressible after all (never seen): the answer goes out as it is.
      () => send(bound, exchange, status, text),
    );
  };

  const send = (bound: BoundRoute, exchange: FastExchange, status: number, body: string | Buffer, coding?: ContentCoding) => {
    const headers = exchange.responseHeaders;
    if (status !== 204) headers['content-type'] = jsonType;
    if (coding !== undefined) headers['content-encoding'] = coding;
    // A response finishing while the server drains closes its connection (as the onSend hook does).
    if (isClosing()) headers.connection = 'close';
    if (status !== 204) headers['content-length'] = String(Buffer.byteLength(body));
    try {
      exchange.res.writeHead(status, headers);
      exchange.res.end(status === 204 ? undefined : body);
    } catch (error) {
      if (coding === undefined) throw error;
      // After a compression the caller has returned: the request must still end.
      logger.error({ err: error, reqId: exchange.id }, 'could not answer a request');
      exchange.res.destroy();
      return;
    }

    if (tracingOn()) nameRequestSpan(exchange.req, bound.route.url);
    const ms = performance.now() - exchange.started;
    let counter = bound.byStatus.get(status);
    if (counter === undefined) {
      counter = metrics.httpRequestsChild(bound.route.method, bound.route.url, String(status));
      bound.byStatus.set(status, counter);
    }
    counter.inc();
    bound.duration.observe(ms / 1000);
    if (accessLog.enabled) {
      const { req } = exchange;
      accessLog.write({ reqId: exchange.id, method: req.method!, url: req.url!, ip: exchange.ip, status, ms });
    }
  };

  const fail = (bound: BoundRoute, exchange: FastExchange, error: unknown) => {
    const appError = toAppError(error as Error);
    if (appError.status >= 500) {
      logger.error({ reqId: exchange.id, err: error }, 'request failed');
    } else if (logger.isLevelEnabled('debug')) {
      logger.debug({ reqId: exchange.id, code: appError.code, msg: appError.message }, 'request refused');
    }
    exchange.headers(appError.headers);
    finish(bound, exchange, appError.status, JSON.stringify(errorBody(appError)));
  };

  const serve = async (bound: BoundRoute, exchange: FastExchange) => {
    try {
      // Refused only when it arrived while the server drained: one that arrived before is in flight.
      if (exchange.arrivedWhileClosing) {
        exchange.responseHeaders.connection = 'close';
        throw shuttingDown();
      }
      const text = await bound.route.handle(exchange);
      finish(bound, exchange, text === '' ? 204 : 200, text);
    } catch (error) {
      try {
        fail(bound, exchange, error);
      } catch (failure) {
        // Nothing left to answer with (e.g. the socket is gone): the request must still end.
        logger.error({ err: failure, reqId: exchange.id }, 'could not answer a request');
        exchange.res.destroy();
      }
    }
  };

  // Requests taken in one turn of the event loop are answered together once the turn's reads are done
  // (setImmediate): their bodies have been parsed by then and are read at once, and the responses go
  // out as one burst. Answering each from inside its socket's read, between the reads of the others,
  // cost twice the CPU per request under load: each write woke a client that had gone idle.
  let waiting: BoundRoute[] = [];
  let waitingExchanges: FastExchange[] = [];
  const serveWaiting = () => {
    const bounds = waiting;
    const exchanges = waitingExchanges;
    waiting = [];
    waitingExchanges = [];
    for (let i = 0; i < bounds.length; i++) {
      const bound = bounds[i]!;
      const exchange = exchanges[i]!;
      // Each request in its own trace: this turn's callback runs in the context of the first of them.
      if (tracingOn()) inRequestContext(exchange.req, () => void serve(bound, exchange));
      else void serve(bound, exchange);
    }
  };

  return (req, res) => {
    const url = req.url ?? '';
    for (const bound of routes) {
      if (req.method !== bound.route.method) continue;
      const params = bound.route.match(url, req);
      if (params === undefined) continue;
      const exchange = new FastExchange(req, res, options.requestId(req), params, options.trustProxy);
      if (bound.cors !== undefined) {
        const headers = bound.cors.responseHeaders(req.headers.origin);
        if (headers !== undefined) exchange.headers(headers);
      }
      exchange.arrivedWhileClosing = isClosing();
      if (waiting.length === 0) setImmediate(serveWaiting);
      waiting.push(bound);
      waitingExchanges.push(exchange);
      return true;
    }
    return false;
  };
}
