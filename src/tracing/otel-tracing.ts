import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { redactUrl } from '../auth/key-in-path.ts';
import type { ActiveTracing, RequestListener, SpanKindName } from './tracing.ts';

/** A request's server span and the context its work runs in. */
interface RequestTrace {
  readonly span: Span;
  readonly context: Context;
}

const kinds: Record<SpanKindName, SpanKind> = { internal: SpanKind.INTERNAL, client: SpanKind.CLIENT };

/**
 * The tracing functions over OpenTelemetry's API, once the SDK is registered (start-tracing.ts).
 * Loaded only then: with tracing off, this module and `@opentelemetry/api` are never imported.
 */
export function createOtelTracing(tracer: Tracer): ActiveTracing {
  const requests = new WeakMap<IncomingMessage, RequestTrace>();

  return {
    inSpan(name, attributes, work, kind, place) {
      if (place === 'child-only' && trace.getActiveSpan() === undefined) return work();
      return tracer.startActiveSpan(name, { kind: kinds[kind], attributes, root: place === 'root' }, async (span) => {
        try {
          return await work();
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: errorCodeOf(error) });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    event(name, attributes) {
      trace.getActiveSpan()?.addEvent(name, attributes);
    },
    setAttributes(attributes) {
      trace.getActiveSpan()?.setAttributes(attributes);
    },
    inject(headers) {
      propagation.inject(context.active(), headers);
    },
    traceRequests(listener) {
      return tracedListener(tracer, requests, listener);
    },
    inRequestContext(req, work) {
      const found = requests.get(req);
      return found === undefined ? work() : context.with(found.context, work);
    },
    nameRequest(req, route) {
      const span = requests.get(req)?.span;
      if (span === undefined || !span.isRecording()) return;
      span.updateName(`${req.method} ${route}`);
      span.setAttribute('http.route', route);
    },
  };
}

/**
 * Each request in a server span: the client's `traceparent` is its parent, the request and response
 * emitters are bound to its context (their events, the body's chunks among them, come from the socket's),
 * and the span ends when the response does. Its path is shown as the access log shows it: an API key in
 * the path cut to its prefix, no query.
 */
function tracedListener(
  tracer: Tracer,
  requests: WeakMap<IncomingMessage, RequestTrace>,
  listener: RequestListener,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const method = req.method ?? 'GET';
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': method, 'url.path': redactUrl((req.url ?? '/').split('?')[0]!) },
      },
      parent,
    );
    const traced = trace.setSpan(parent, span);
    requests.set(req, { span, context: traced });
    context.bind(traced, req);
    context.bind(traced, res);
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (!res.writableFinished) span.setAttribute('blockyard.response.aborted', true);
      span.end();
    });
    context.with(traced, listener, undefined, req, res);
  };
}

/** A code that names the failure without quoting it: ours (`AppError.code`, `UpstreamError.reason`), else the class. */
function errorCodeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return 'error';
  const { code, reason, name } = error as { code?: unknown; reason?: unknown; name?: unknown };
  if (typeof code === 'string' && /^[\w.-]{1,64}$/.test(code)) return code;
  if (typeof reason === 'string') return reason;
  return typeof name === 'string' ? name : 'error';
}
