import type { Kysely } from 'kysely';
import { anyOf } from '../db/any-of.ts';
import type { WebhookRow } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';

export const deliveryLogStatuses = ['pending', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryLogStatus = (typeof deliveryLogStatuses)[number];

export interface AttemptView {
  attempt: number;
  attempted_at: string;
  request: { url: string; headers: Record<string, string>; body: string };
  response: { status: number | null; body: string | null };
  latency_ms: number;
  error: string | null;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  kind: string;
  /** `paused`: waiting while the webhook is paused (or disabled); `pending`: due, or waiting for its next attempt. */
  status: DeliveryLogStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  note: string | null;
  block_number: number | null;
  removed: boolean;
  test: boolean;
  created_at: string;
  updated_at: string;
  attempts: AttemptView[];
}

/** One webhook's delivery log, newest first: every delivery with every attempt, request and response. */
export async function readDeliveryLog(
  db: Kysely<Tables>,
  webhook: Pick<WebhookRow, 'id' | 'status'>,
  query: { status?: DeliveryLogStatus; offset: number; limit: number },
): Promise<{ deliveries: DeliveryView[]; total: number }> {
  const running = webhook.status === 'active';
  let base = db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .where('d.webhook_id', '=', webhook.id);
  if (query.status === 'paused' || query.status === 'pending') {
    // A pending delivery of a webhook that is not active is shown as paused.
    const wanted = query.status === 'paused' ? !running : running;
    base = wanted ? base.where('d.status', '=', 'pending') : base.where('d.status', '=', 'pending').where('d.id', '=', '');
  } else if (query.status) {
    base = base.where('d.status', '=', query.status);
  }
  const [rows, count] = await Promise.all([
    base
      .select([
        'd.id',
        'd.event_id',
        'd.kind',
        'd.status',
        'd.attempts',
        'd.next_attempt_at',
        'd.note',
        'd.created_at',
        'd.updated_at',
        'e.event_type',
        'e.block_number',
        'e.removed',
        'e.test',
      ])
      .orderBy('d.position', 'desc')
      .offset(query.offset)
      .limit(query.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  const attempts =
    rows.length === 0
      ? []
      : await db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where(
            anyOf(
              'delivery_id',
              rows.map((row) => row.id),
            ),
          )
          .orderBy('id')
          .execute();
  const byDelivery = new Map<string, AttemptView[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.delivery_id) ?? [];
    list.push({
      attempt: attempt.attempt,
      attempted_at: new Date(attempt.attempted_at).toISOString(),
      request: { url: attempt.request_url, headers: attempt.request_headers, body: attempt.request_body },
      response: { status: attempt.response_status, body: attempt.response_body },
      latency_ms: attempt.latency_ms,
      error: attempt.error,
    });
    byDelivery.set(attempt.delivery_id, list);
  }
  return {
    total: Number(count.total),
    deliveries: rows.map((row) => ({
      id: row.id,
      event_id: row.event_id,
      event_type: row.event_type,
      kind: row.kind,
      status: row.status === 'pending' && !running ? 'paused' : row.status,
      attempt_count: row.attempts,
      next_attempt_at: row.status === 'pending' ? new Date(row.next_attempt_at).toISOString() : null,
      note: row.note,
      block_number: row.block_number === null ? null : Number(row.block_number),
      removed: row.removed,
      test: row.test,
      created_at: new Date(row.created_at).toISOString(),
      updated_at: new Date(row.updated_at).toISOString(),
      attempts: byDelivery.get(row.id) ?? [],
    })),
  };
}
