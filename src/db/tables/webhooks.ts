import type { ColumnType, Generated, Selectable } from 'kysely';
import type { BigNumeric, Json, Nullable, Timestamp } from './column-types.ts';

// Webhooks, the events matched for them, their deliveries and each attempt.

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  chain: string;
  network: string;
  event_type: string;
  config: Json<Record<string, unknown>>;
  payload_format: 'snake_case' | 'camelCase';
  status: 'active' | 'paused' | 'disabled';
  status_reason: Nullable<string>;
  disabled_by: Nullable<'endpoint' | 'operator'>;
  secret_ciphertext: string;
  previous_secret_ciphertext: Nullable<string>;
  previous_secret_expires_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  start_seq: BigNumeric;
  /** Filters by `webhook_addresses` (false: by `config.addresses`, a webhook the previous release wrote). */
  address_filter: ColumnType<boolean, boolean | undefined, boolean>;
  address_count: ColumnType<number, number | undefined, number>;
  /** Deleted by its owner while a worker was sending to it: gone for the API, its rows removed later. */
  deleted_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A webhook's watched addresses (lower-case), up to 100,000 a webhook. */
export interface WebhookAddressesTable {
  webhook_id: string;
  address: string;
}

export interface WebhookEventsTable {
  id: string;
  webhook_id: string;
  source_key: string;
  chain_seq: ColumnType<string | null, string | number | bigint | null | undefined, string | null>;
  event_type: string;
  block_number: ColumnType<string | null, string | number | bigint | null | undefined, string | null>;
  removed: ColumnType<boolean, boolean | undefined, boolean>;
  removes_event_id: Nullable<string>;
  test: ColumnType<boolean, boolean | undefined, boolean>;
  data: Json<Record<string, unknown>>;
  created_at: Timestamp;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';
export type DeliveryKind = 'event' | 'redelivery' | 'replay' | 'test';

export interface WebhookDeliveriesTable {
  position: ColumnType<string, never, never>;
  id: string;
  webhook_id: string;
  account_id: string;
  event_id: string;
  network: string;
  kind: DeliveryKind;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  ready_block: ColumnType<string | null, string | number | bigint | null | undefined, string | number | bigint | null>;
  /** Waits until the index counts `ready_block` final (`confirmations: "finalized"`). */
  ready_final: ColumnType<boolean, boolean | undefined, boolean>;
  next_attempt_at: Timestamp;
  note: Nullable<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: ColumnType<string, never, never>;
  delivery_id: string;
  webhook_id: string;
  attempt: number;
  attempted_at: Timestamp;
  request_url: string;
  request_headers: Json<Record<string, string>>;
  request_body: string;
  response_status: Nullable<number>;
  response_body: Nullable<string>;
  latency_ms: number;
  error: Nullable<string>;
}

export interface WebhookDailyUsageTable {
  account_id: string;
  day: string;
  deliveries: number;
}

export interface WebhookMatcherCursorTable {
  name: string;
  seq: BigNumeric;
  /** Rounds of this release's matcher that moved the cursor (migration 2026-12-04T0600). */
  matcher_round: ColumnType<string, string | number | bigint | undefined, string | number | bigint>;
  /** When a previous release's matcher last moved the cursor (set by a trigger). */
  previous_release_moved_at: ColumnType<Date | null, never, never>;
}

export type WebhookRow = Selectable<WebhooksTable>;
export type WebhookEventRow = Selectable<WebhookEventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookAttemptRow = Selectable<WebhookAttemptsTable>;

/** A paused-webhook notice still to be sent (written with the pause; src/webhooks/paused-notice-outbox.ts). */
export interface WebhookPausedNoticesTable {
  id: Generated<string>;
  webhook_id: string;
  account_id: string;
  notice: Json<Record<string, unknown>>;
  created_at: Timestamp;
  next_attempt_at: Timestamp;
  attempts: ColumnType<number, number | undefined, number>;
  last_error: Nullable<string>;
  sent_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}
