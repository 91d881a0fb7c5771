import type { FromSchema } from 'json-schema-to-ts';
import { ConfigError } from './config-error.ts';
import { closedObject, integerIn } from './json-schema-parts.ts';
import { isAddressRange } from './private-destinations.ts';

/** YAML `webhooks:` section: how deliveries are made. */
export const webhookSettingsSchema = closedObject({
  /** Seconds before each retry; its length is the number of retries (default Variant A's 10, 60, 600, 3600, 21600). */
  retry_schedule_s: { type: 'array', items: { type: 'number', minimum: 0, maximum: 604_800 }, minItems: 1, maxItems: 20 },
  /** Per attempt, for the whole exchange (default 15). */
  timeout_s: { type: 'number', exclusiveMinimum: 0, maximum: 60 },
  /** Requests in flight to one webhook's endpoint at most (default 16). */
  max_in_flight_per_endpoint: integerIn(1, 256),
  /** Largest request body sent; bigger `data` fields are cut (default 262144). */
  max_payload_bytes: integerIn(4096, 10 * 1024 * 1024),
  /** How often the pending-transaction feed is read (default 250). */
  pending_poll_ms: integerIn(20, 60_000),
  /** Events one replay queues at most; past it the replay stops and answers where to go on (default 10000). */
  replay_max_events: integerIn(1, 1_000_000),
  /** Chain events a replay reads and matches per page, in one transaction (default 1000). */
  replay_page_events: integerIn(1, 10_000),
  /** Private address ranges (CIDR) webhooks may be sent to, in any mode: internal receivers (default none). */
  private_destinations: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 64 }, maxItems: 100 },
});

export interface WebhooksConfig {
  readonly retryScheduleS: readonly number[];
  readonly timeoutMs: number;
  readonly maxInFlightPerEndpoint: number;
  readonly maxPayloadBytes: number;
  readonly pendingPollMs: number;
  readonly replayMaxEvents: number;
  readonly replayPageEvents: number;
  /** CIDR ranges (validated) whose private addresses webhooks may go to. */
  readonly privateDestinations: readonly string[];
}

/** Variant A's retry schedule (design.md): 10 s, 1 min, 10 min, 1 h, 6 h. */
export const defaultRetryScheduleS = [10, 60, 600, 3600, 21600];

export function buildWebhooks(webhooks: FromSchema<typeof webhookSettingsSchema> = {}): WebhooksConfig {
  return {
    retryScheduleS: webhooks.retry_schedule_s ?? defaultRetryScheduleS,
    timeoutMs: (webhooks.timeout_s ?? 15) * 1000,
    maxInFlightPerEndpoint: webhooks.max_in_flight_per_endpoint ?? 16,
    maxPayloadBytes: webhooks.max_payload_bytes ?? 256 * 1024,
    pendingPollMs: webhooks.pending_poll_ms ?? 250,
    replayMaxEvents: webhooks.replay_max_events ?? 10_000,
    replayPageEvents: webhooks.replay_page_events ?? 1000,
    privateDestinations: (webhooks.private_destinations ?? []).map((cidr, index) => {
      if (!isAddressRange(cidr))
        throw new ConfigError(
          `webhooks.private_destinations[${index}]`,
          `${JSON.stringify(cidr)} is not a CIDR range (e.g. 10.0.0.0/8, fd00::/8)`,
        );
      return cidr.trim();
    }),
  };
}
