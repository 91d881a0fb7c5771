import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly rateLimited: Counter<'limit'>;
  readonly rpcCalls: Counter<'chain' | 'network' | 'method'>;
  readonly upstreamErrors: Counter<'chain' | 'network' | 'reason'>;
  readonly upstreamDuration: Histogram<'chain' | 'network'>;
}

/** A registry per service instance, so several instances (tests) never share counters. */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'blockyard_' });
  const registers = [registry];
  return {
    registry,
    httpRequests: new Counter({
      name: 'blockyard_http_requests_total',
      help: 'HTTP requests answered, by route and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: 'blockyard_http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    rateLimited: new Counter({
      name: 'blockyard_rate_limited_total',
      help: 'Requests refused with 429, by the limit that was hit',
      labelNames: ['limit'],
      registers,
    }),
    rpcCalls: new Counter({
      name: 'blockyard_rpc_calls_total',
      help: 'JSON-RPC calls proxied, by method',
      labelNames: ['chain', 'network', 'method'],
      registers,
    }),
    upstreamErrors: new Counter({
      name: 'blockyard_upstream_errors_total',
      help: 'Upstream requests that failed (connection, timeout, bad status)',
      labelNames: ['chain', 'network', 'reason'],
      registers,
    }),
    upstreamDuration: new Histogram({
      name: 'blockyard_upstream_request_duration_seconds',
      help: 'Time an upstream took to answer',
      labelNames: ['chain', 'network'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
  };
}
