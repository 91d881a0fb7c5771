import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the service's code calls to trace its work. Tracing is off unless configured
 * (src/config/tracing-settings.ts), and off, each call here is one comparison: no span, no closure, no
 * OpenTelemetry module loaded. On, `startTracing` (start-tracing.ts) loads the SDK and sets the
 * implementation (otel-tracing.ts).
 *
 * One per process, as OpenTelemetry's own API is: spans follow the work through `await`s by the
 * process's async context, which no argument passing could do without touching every signature.
 *
 * Attributes never carry an API key, a secret, a URL that may hold either, or a request body:
 * callers pass method names, network names, upstream labels (src/chains/pooled-upstream.ts), ids and
 * counts only.
 */

/** Attribute values: names, ids, counts and flags only. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** The implementation behind the functions below while tracing is on. */
export interface ActiveTracing {
  inSpan<T>(name: string, attributes: SpanAttributes, work: () => Promise<T>, kind: SpanKindName, place: SpanPlace): Promise<T>;
  event(name: string, attributes: SpanAttributes | undefined): void;
  setAttributes(attributes: SpanAttributes): void;
  /** Adds `traceparent` (and `tracestate`) of the current span to `headers`. */
  inject(headers: Record<string, string>): void;
  traceRequests(listener: RequestListener): RequestListener;
  inRequestContext<T>(req: IncomingMessage, work: () => T): T;
  nameRequest(req: IncomingMessage, route: string): void;
}

/** `client`: a request to another service (an upstream node, a webhook receiver). */
export type SpanKindName = 'internal' | 'client';

/**
 * `child`: under the current span, or a new trace outside any; `child-only`: outside any span, the work
 * runs untraced; `root`: always a trace of its own.
 */
export type SpanPlace = 'child' | 'child-only' | 'root';

let active: ActiveTracing | undefined;

/** Set by `startTracing`, cleared by its `stop`. */
export function setActiveTracing(tracing: ActiveTracing | undefined): void {
  active = tracing;
}

/** Whether spans are recorded: hot paths ask first, so that off they build no closure or attributes. */
export function tracingOn(): boolean {
  return active !== undefined;
}

/**
 * Runs `work` in a span, a child of the current one; a thrown error marks the span failed (with the
 * error's code or name, never its message, which may quote a client's input) and is thrown on.
 */
export function inSpan<T>(
  name: string,
  attributes: SpanAttributes,
  work: () => Promise<T>,
  kind: SpanKindName = 'internal',
): Promise<T> {
  return active === undefined ? work() : active.inSpan(name, attributes, work, kind, 'child');
}

/**
 * `inSpan` only inside a trace: work that also runs on its own (head polls, stall probes) starts no
 * trace of its own, and a request's or a round's part of it shows in that request's or round's trace.
 */
export function inChildSpan<T>(
  name: string,
  attributes: SpanAttributes,
  work: () => Promise<T>,
  kind: SpanKindName = 'internal',
): Promise<T> {
  return active === undefined ? work() : active.inSpan(name, attributes, work, kind, 'child-only');
}

/**
 * `inSpan` as a trace of its own: for a unit of background work (an indexer round, a delivery, a
 * bundle). The loops that run them were woken from some request's or round's context, and a span
 * under it would put every later round or delivery in that one old trace.
 */
export function inRootSpan<T>(
  name: string,
  attributes: SpanAttributes,
  work: () => Promise<T>,
  kind: SpanKindName = 'internal',
): Promise<T> {
  return active === undefined ? work() : active.inSpan(name, attributes, work, kind, 'root');
}

/** An event on the current span (a cache lookup's outcome, a hedge). */
export function spanEvent(name: string, attributes?: SpanAttributes): void {
  active?.event(name, attributes);
}

/** More attributes on the current span (an outcome known at its end). */
export function setSpanAttributes(attributes: SpanAttributes): void {
  active?.setAttributes(attributes);
}

/**
 * `headers` with the current span's `traceparent` added (a copy), for a request to an upstream or a
 * webhook receiver; off, or outside any span, `headers` itself.
 */
export function withTraceparent(headers: Record<string, string>): Record<string, string> {
  if (active === undefined) return headers;
  const traced = { ...headers };
  active.inject(traced);
  return traced;
}

/**
 * The server's request listener, each request in a server span that continues the client's
 * `traceparent`; off, `listener` itself.
 */
export function traceRequests(listener: RequestListener): RequestListener {
  return active === undefined ? listener : active.traceRequests(listener);
}

/** Runs `work` in the request's span: for work a request hands to a later turn of the event loop. */
export function inRequestContext<T>(req: IncomingMessage, work: () => T): T {
  return active === undefined ? work() : active.inRequestContext(req, work);
}

/** Names the request's server span after its route (`POST /v1/rpc/:chain/:network`): no key, no id. */
export function nameRequestSpan(req: IncomingMessage, route: string): void {
  active?.nameRequest(req, route);
}
