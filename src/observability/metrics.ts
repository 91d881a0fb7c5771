import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import { type CounterChild, CounterChildren } from './counter-children.ts';
import { FastHistogram, type HistogramChild } from './fast-histogram.ts';

export type { CounterChild } from './counter-children.ts';
export type { HistogramChild } from './fast-histogram.ts';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: FastHistogram<'method' | 'route'>;
  readonly rateLimited: Counter<'limit'>;
  readonly rpcCalls: Counter<'chain' | 'network' | 'method'>;
  readonly upstreamErrors: Counter<'chain' | 'network' | 'reason'>;
  readonly upstreamDuration: FastHistogram<'chain' | 'network'>;
  /**
   * Connections to the database or Redis that broke under this node (the server restarted, failed over
   * or ended them; a network device cut them). A counter, so an outage shorter than a scrape interval
   * or the 2 s readiness probe still shows: `increase()` over any window sees it.
   */
  readonly dependencyConnectionsLost: Counter<'dependency'>;
  /** Hot-path children, cached by label values: the same series as the counters above. */
  httpRequestsChild(method: string, route: string, status: string): CounterChild;
  rpcCallsChild(chain: string, network: string, method: string): CounterChild;
  upstreamDurationChild(chain: string, network: string): HistogramChild;
}

/** A registry per service instance, so several instances (tests) never share counters. */
export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'blockyard_' });
  const registers = [registry];
  const httpRequestsChildren = new CounterChildren(['method', 'route', 'status'] as const);
  const httpRequests = new Counter({
    name: 'blockyard_http_requests_total',
    help: 'HTTP requests answered, by route and status',
    labelNames: ['method', 'route', 'status'],
    registers,
    collect: () => httpRequestsChildren.flush(),
  });
  httpRequestsChildren.attach(httpRequests);
  const httpDuration = new FastHistogram({
    name: 'blockyard_http_request_duration_seconds',
    help: 'Time to answer an HTTP request',
    labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers,
  });
  const rateLimited = new Counter({
    name: 'blockyard_rate_limited_total',
    help: 'Requests refused with 429, by the limit that was hit',
    labelNames: ['limit'],
    registers,
  });
  const rpcCallsChildren = new CounterChildren(['chain', 'network', 'method'] as const);
  const rpcCalls = new Counter({
    name: 'blockyard_rpc_calls_total',
    help: 'JSON-RPC calls proxied, by method',
    labelNames: ['chain', 'network', 'method'],
    registers,
    collect: () => rpcCallsChildren.flush(),
  });
  rpcCallsChildren.attach(rpcCalls);
  const upstreamErrors = new Counter({
    name: 'blockyard_upstream_errors_total',
    help: 'Upstream requests that failed (connection, timeout, bad status)',
    labelNames: ['chain', 'network', 'reason'],
    registers,
  });
  const upstreamDuration = new FastHistogram({
    name: 'blockyard_upstream_request_duration_seconds',
    help: 'Time an upstream took to answer',
    labelNames: ['chain', 'network'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const dependencyConnectionsLost = new Counter({
    name: 'blockyard_dependency_connections_lost_total',
    help: 'Connections to a dependency (database, redis) that broke: a restart, failover or network cut',
    labelNames: ['dependency'],
    registers,
  });
  // Present from the start at 0: increase() needs a sample before the first loss to see it.
  dependencyConnectionsLost.inc({ dependency: 'database' }, 0);
  const upstreamDurationChildren = new Map<string, HistogramChild>();

  return {
    registry,
    httpRequests,
    httpDuration,
    rateLimited,
    rpcCalls,
    upstreamErrors,
    upstreamDuration,
    dependencyConnectionsLost,
    httpRequestsChild: (method, route, status) => httpRequestsChildren.child(method, route, status),
    rpcCallsChild: (chain, network, method) => rpcCallsChildren.child(chain, network, method),
    upstreamDurationChild(chain, network) {
      const key = `${chain}/${network}`;
      let child = upstreamDurationChildren.get(key);
      if (child === undefined) {
        child = upstreamDuration.labels(chain, network);
        upstreamDurationChildren.set(key, child);
      }
      return child;
    },
  };
}
