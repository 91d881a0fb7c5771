import { CompiledQuery, type Kysely } from 'kysely';
import { preparedComment } from '../db/prepared-statements.ts';
import type { Tables } from '../db/tables.ts';
import type { ServedWebhook } from './claim-deliveries.ts';
import type { DeliveryUpdate } from './plan-delivery-outcomes.ts';
import type { SentDelivery } from './send-claimed.ts';

/**
 * The delivery's event has a removal (the matcher queued it while the attempt was in flight): two
 * primary-key and unique-index probes, evaluated only for a delivery that would be retried.
 */
const takenBack = `exists (
  select 1 from webhook_events e
  join webhook_events r on r.webhook_id = e.webhook_id and r.source_key = 'removal:' || e.chain_seq
  where e.id = d.event_id and e.chain_seq is not null)`;

/**
 * One statement, prepared once per connection, whatever the batch's size: every attempt of the batch
 * goes to the delivery log (request and response), and every delivery gets its new status, attempt
 * count, next attempt and note. The rows come as two JSON texts (one `JSON.stringify` each, no
 * per-value escaping in JavaScript), read as `jsonb`: parsed once, where `json` would be checked on
 * input, parsed again to split the rows, and each row's headers a third time. Its text never changes,
 * so Postgres parses and plans it once instead of a 2,000-parameter insert per batch, and it is one
 * round trip, not two.
 */
const recordText = `${preparedComment('webhook_record_attempts')}with logged as (
  insert into webhook_attempts (delivery_id, webhook_id, attempt, attempted_at, request_url, request_headers,
                                request_body, response_status, response_body, latency_ms, error)
  select a.delivery_id, $1, a.attempt, a.attempted_at, $2, a.request_headers,
         a.request_body, a.response_status, a.response_body, a.latency_ms, a.error
  from jsonb_to_recordset($3::jsonb) as a(delivery_id text, attempt int, attempted_at timestamptz, request_headers jsonb,
                                        request_body text, response_status int, response_body text, latency_ms int, error text))
update webhook_deliveries d
set status = case when v.status <> 'pending' then v.status when ${takenBack} then 'cancelled' else v.status end,
    attempts = d.attempts + 1,
    next_attempt_at = v.next,
    note = case when v.status <> 'pending' then v.note
                when ${takenBack} then 'cancelled: a reorg took back its block while this attempt was in flight; '
                                       || 'not retried (a removed event names it)'
                else v.note end,
    updated_at = now()
from jsonb_to_recordset($4::jsonb) as v(id text, status text, next timestamptz, note text)
where d.id = v.id`;

/**
 * Writes each attempt to the delivery log (request and response) and each delivery's new status,
 * attempt count, next attempt and note, in the serving transaction. A failed attempt whose event a
 * reorg took back while it was in flight (the matcher queued its removal meanwhile) is cancelled, not
 * retried: a retry would carry the original after the removal that names it.
 */
export async function recordAttempts(
  trx: Kysely<Tables>,
  webhook: Pick<ServedWebhook, 'id' | 'url'>,
  sent: readonly SentDelivery[],
  updates: readonly DeliveryUpdate[],
): Promise<void> {
  if (sent.length === 0) return;
  const attempts = sent.map(({ delivery, request, at, result }) => ({
    delivery_id: delivery.id,
    attempt: delivery.attempts + 1,
    attempted_at: at,
    request_headers: request.headers,
    request_body: request.body,
    response_status: result.status,
    response_body: storable(result.responseBody),
    latency_ms: result.latencyMs,
    error: storable(result.error),
  }));
  const outcomes = updates.map(({ id, status, next, note }) => ({ id, status, next, note: storable(note) }));
  await trx.executeQuery(
    CompiledQuery.raw(recordText, [webhook.id, webhook.url, JSON.stringify(attempts), JSON.stringify(outcomes)]),
  );
}

/**
 * A receiver's answer as Postgres text can hold it: text has no NUL character, and one would fail the
 * whole batch's write (and with it the outcome of every delivery already sent), so it becomes U+FFFD.
 */
function storable(text: string | null): string | null {
  return text?.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text;
}
