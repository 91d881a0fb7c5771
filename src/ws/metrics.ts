import { Counter, Gauge, type Registry } from 'prom-client';

export interface WsMetrics {
  readonly connections: Gauge;
  readonly subscriptions: Gauge<'kind'>;
  readonly messagesIn: Counter;
  readonly messagesOut: Counter;
  /** Closes the server starts, by reason (slow_consumer, keepalive, shutdown). */
  readonly serverCloses: Counter<'reason'>;
  /** Upstream subscriptions held (one per kind per network however many clients: the fan-out). */
  readonly upstreamSubscriptions: Gauge<'chain' | 'network' | 'kind'>;
  readonly upstreamReconnects: Counter<'chain' | 'network'>;
  /** Upstream WebSockets left because they stopped announcing heads while the pool moved on. */
  readonly upstreamLagSwitches: Counter<'chain' | 'network'>;
  /** Pending transactions looked up by hash for alchemy_pendingTransactions on a node that sends only hashes, by outcome. */
  readonly pendingLookups: Counter<'chain' | 'network' | 'outcome'>;
}

/** The WebSocket endpoint's metrics, on the service's registry. */
export function createWsMetrics(registry: Registry): WsMetrics {
  const registers = [registry];
  return {
    connections: new Gauge({ name: 'blockyard_ws_connections', help: 'Open client WebSocket connections', registers }),
    subscriptions: new Gauge({
      name: 'blockyard_ws_subscriptions',
      help: 'Client subscriptions, by kind',
      labelNames: ['kind'],
      registers,
    }),
    messagesIn: new Counter({ name: 'blockyard_ws_messages_in_total', help: 'Messages received from clients', registers }),
    messagesOut: new Counter({ name: 'blockyard_ws_messages_out_total', help: 'Messages sent to clients', registers }),
    serverCloses: new Counter({
      name: 'blockyard_ws_server_closes_total',
      help: 'Client connections the server closed, by reason',
      labelNames: ['reason'],
      registers,
    }),
    upstreamSubscriptions: new Gauge({
      name: 'blockyard_ws_upstream_subscriptions',
      help: 'Subscriptions held on upstream nodes, by kind (one serves every client)',
      labelNames: ['chain', 'network', 'kind'],
      registers,
    }),
    upstreamReconnects: new Counter({
      name: 'blockyard_ws_upstream_reconnects_total',
      help: 'Times an upstream WebSocket was lost and reopened',
      labelNames: ['chain', 'network'],
      registers,
    }),
    upstreamLagSwitches: new Counter({
      name: 'blockyard_ws_upstream_lag_switches_total',
      help: 'Upstream WebSockets left because they stopped announcing heads while other upstreams moved on',
      labelNames: ['chain', 'network'],
      registers,
    }),
    pendingLookups: new Counter({
      name: 'blockyard_ws_pending_lookups_total',
      help: 'Pending transactions looked up by hash (a node that sends only hashes), by outcome: found, gone, failed, dropped',
      labelNames: ['chain', 'network', 'outcome'],
      registers,
    }),
  };
}
