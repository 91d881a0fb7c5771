import { type Kysely, sql } from 'kysely';
import { Counter, type Registry } from 'prom-client';
import type { Tables } from '../db/tables.ts';
import { registerDatabaseGauge } from '../observability/database-gauge.ts';

/** Counts attempts by outcome; the counter is shared by every worker of the registry. */
export function createAttemptCounter(registry: Registry): Counter<'outcome'> {
  const existing = registry.getSingleMetric('blockyard_webhook_attempts_total') as Counter<'outcome'> | undefined;
  return (
    existing ??
    new Counter({
      name: 'blockyard_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered, failed, retrying, gone)',
      labelNames: ['outcome'],
      registers: [registry],
    })
  );
}

/** The deliveries waiting, due now or scheduled later, read from the database when scraped. */
export function registerPendingDeliveriesGauge(db: Kysely<Tables>, registry: Registry): void {
  registerDatabaseGauge({
    registry,
    name: 'blockyard_webhook_pending_deliveries',
    help: 'Webhook deliveries waiting to be sent (all webhooks): due now, or scheduled later (retries, confirmations, the daily cap)',
    labelNames: ['state'],
    read: async () => {
      const { rows } = await sql<{ due: number; scheduled: number }>`
        select count(*) filter (where next_attempt_at <= now())::int as due,
               count(*) filter (where next_attempt_at > now())::int as scheduled
        from webhook_deliveries where status = 'pending'`.execute(db);
      return [
        { labels: { state: 'due' }, value: rows[0]?.due ?? 0 },
        { labels: { state: 'scheduled' }, value: rows[0]?.scheduled ?? 0 },
      ];
    },
  });
}

/**
 * How many chain events the matcher has yet to read (the newest event's sequence number less its
 * cursor), read when scraped. A round that keeps failing stops every webhook without queueing
 * anything, so the delivery gauges stay quiet: this one grows.
 */
export function registerMatcherBehindGauge(db: Kysely<Tables>, registry: Registry): void {
  registerDatabaseGauge({
    registry,
    name: 'blockyard_webhook_matcher_behind_events',
    help: 'Chain events the webhook matcher has not read yet (newest chain event less its cursor)',
    labelNames: [],
    read: async () => {
      const { rows } = await sql<{ behind: string | null }>`
        select greatest((select max(seq) from chain_events)
               - (select seq from webhook_matcher_cursor where name = 'chain_events'), 0) as behind`.execute(db);
      return [{ labels: {}, value: Number(rows[0]?.behind ?? 0) }];
    },
  });
}
