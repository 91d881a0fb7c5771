import { type Kysely, sql } from 'kysely';
import type { Tables } from '../db/tables.ts';
import type { ServedWebhook } from './claim-deliveries.ts';
import type { DeliveryUpdate } from './plan-delivery-outcomes.ts';
import type { SentDelivery } from './send-claimed.ts';

/**
 * Writes each attempt to the delivery log (request and response) and each delivery's new status,
 * attempt count, next attempt and note, in the serving transaction.
 */
export async function recordAttempts(
  trx: Kysely<Tables>,
  webhook: Pick<ServedWebhook, 'id' | 'url'>,
  sent: readonly SentDelivery[],
  updates: readonly DeliveryUpdate[],
): Promise<void> {
  if (sent.length === 0) return;
  await trx
    .insertInto('webhook_attempts')
    .values(
      sent.map(({ delivery, request, at, result }) => ({
        delivery_id: delivery.id,
        webhook_id: webhook.id,
        attempt: delivery.attempts + 1,
        attempted_at: at,
        request_url: webhook.url,
        request_headers: JSON.stringify(request.headers),
        request_body: request.body,
        response_status: result.status,
        response_body: result.responseBody,
        latency_ms: result.latencyMs,
        error: result.error,
      })),
    )
    .execute();
  await sql`
    update webhook_deliveries d
    set status = v.status, attempts = d.attempts + 1, next_attempt_at = v.next, note = v.note, updated_at = now()
    from unnest(${updates.map((u) => u.id)}::text[], ${updates.map((u) => u.status)}::text[],
                ${updates.map((u) => u.next.toISOString())}::timestamptz[], ${updates.map((u) => u.note)}::text[])
      as v(id, status, next, note)
    where d.id = v.id`.execute(trx);
}
