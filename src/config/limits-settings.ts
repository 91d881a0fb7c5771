import type { FromSchema } from 'json-schema-to-ts';
import { closedObject, integerIn } from './json-schema-parts.ts';

/** YAML `limits:` section: connection, body and WebSocket caps (docs/limits.md gives the defaults and why). */
export const limitsSettingsSchema = closedObject({
  max_connections: integerIn(1, 1_000_000),
  max_connections_per_ip: integerIn(1, 1_000_000),
  max_body_bytes: integerIn(1024, 100 * 1024 * 1024),
  ws_max_connections_per_account: integerIn(1, 1_000_000),
  ws_max_connections_per_ip: integerIn(1, 1_000_000),
  ws_max_subscriptions_per_connection: integerIn(1, 100_000),
  ws_max_buffered_bytes: integerIn(16 * 1024, 1024 * 1024 * 1024),
  ws_max_message_bytes: integerIn(1024, 100 * 1024 * 1024),
  ws_ping_interval_ms: integerIn(1_000, 3_600_000),
  ws_feed_idle_ms: integerIn(1_000, 86_400_000),
  data_queries_per_account: integerIn(1, 10_000),
  statement_timeout_ms: integerIn(0, 3_600_000),
  indexer_statement_timeout_ms: integerIn(0, 3_600_000),
});

/** Caps on what clients may hold or send (`limits:`; docs/limits.md). */
export interface LimitsConfig {
  /** Open TCP connections (WebSockets included) in all, and from one client address. */
  readonly maxConnections: number;
  readonly maxConnectionsPerIp: number;
  /** Largest REST body, but on routes with their own (list-bearing ones, JSON-RPC). */
  readonly maxBodyBytes: number;
  readonly wsMaxConnectionsPerAccount: number;
  readonly wsMaxConnectionsPerIp: number;
  readonly wsMaxSubscriptionsPerConnection: number;
  /** Unread bytes a WebSocket client may let wait before it is closed with 4008. */
  readonly wsMaxBufferedBytes: number;
  /** Largest WebSocket message a client may send (a larger one closes with 1009). */
  readonly wsMaxMessageBytes: number;
  /** How often each WebSocket client is pinged; one that has not answered by the next ping is dropped. */
  readonly wsPingIntervalMs: number;
  /** A network's upstream feed with no subscriber for this long is released (its connection or polling stops). */
  readonly wsFeedIdleMs: number;
  /** Data queries (transfers, balances, NFTs) one account may have running at once on this node; more answer 429. */
  readonly dataQueriesPerAccount: number;
  /** The database sessions' statement_timeout (0: none); the indexer's write transactions have their own. */
  readonly statementTimeoutMs: number;
  readonly indexerStatementTimeoutMs: number;
}

/** Defaults of `limits:`, justified in docs/limits.md. */
export function buildLimits(limits: FromSchema<typeof limitsSettingsSchema> = {}): LimitsConfig {
  return {
    maxConnections: limits.max_connections ?? 10_000,
    maxConnectionsPerIp: limits.max_connections_per_ip ?? 1_000,
    maxBodyBytes: limits.max_body_bytes ?? 64 * 1024,
    wsMaxConnectionsPerAccount: limits.ws_max_connections_per_account ?? 1_000,
    wsMaxConnectionsPerIp: limits.ws_max_connections_per_ip ?? 1_000,
    wsMaxSubscriptionsPerConnection: limits.ws_max_subscriptions_per_connection ?? 100,
    wsMaxBufferedBytes: limits.ws_max_buffered_bytes ?? 1024 * 1024,
    wsMaxMessageBytes: limits.ws_max_message_bytes ?? 1024 * 1024,
    wsPingIntervalMs: limits.ws_ping_interval_ms ?? 30_000,
    wsFeedIdleMs: limits.ws_feed_idle_ms ?? 60_000,
    dataQueriesPerAccount: limits.data_queries_per_account ?? 4,
    statementTimeoutMs: limits.statement_timeout_ms ?? 5_000,
    indexerStatementTimeoutMs: limits.indexer_statement_timeout_ms ?? 120_000,
  };
}
