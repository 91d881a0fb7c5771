import { type Kysely, sql } from 'kysely';
import type { DeliveryKind } from '../db/tables/webhooks.ts';
import type { Tables } from '../db/tables.ts';
import type { WebhookEventType } from './event-types.ts';
import { eventId, newDeliveryId } from './ids.ts';

/** The channel workers LISTEN on: something was queued. */
export const deliveriesChannel = 'blockyard_webhook_deliveries';

export interface OutboxEvent {
  readonly webhookId: string;
  readonly accountId: string;
  readonly network: string;
  readonly sourceKey: string;
  readonly chainSeq: string | null;
  readonly type: WebhookEventType;
  readonly blockNumber: number | null;
  readonly removed?: boolean;
  readonly removesEventId?: string | null;
  readonly test?: boolean;
  readonly data: Record<string, unknown>;
  /** Not sent before the network's indexed head reaches this block. */
  readonly readyBlock?: number | null;
  /** And not before the index counts that block final (`confirmations: "finalized"`). */
  readonly readyFinal?: boolean;
}

/**
 * Records events and queues their deliveries, in the caller's transaction (the matcher's, so its
 * cursor moves with them). An event already recorded (same webhook and source) keeps its id; it is
 * queued again only when `kind` asks for it (replay), never twice by live matching.
 */
export async function writeOutbox(
  trx: Kysely<Tables>,
  events: readonly OutboxEvent[],
  kind: DeliveryKind,
): Promise<{ queued: number; eventIds: string[] }> {
  if (events.length === 0) return { queued: 0, eventIds: [] };
  const rows = events.map((event) => ({
    id: eventId(event.webhookId, event.sourceKey),
    webhook_id: event.webhookId,
    source_key: event.sourceKey,
    chain_seq: event.chainSeq,
    event_type: event.type,
    block_number: event.blockNumber,
    removed: event.removed ?? false,
    removes_event_id: event.removesEventId ?? null,
    test: event.test ?? false,
    data: JSON.stringify(event.data),
  }));
  const inserted = new Set<string>();
  for (let at = 0; at < rows.length; at += 1000) {
    const chunk = rows.slice(at, at + 1000);
    const done = await trx
      .insertInto('webhook_events')
      .values(chunk)
      .onConflict((oc) => oc.columns(['webhook_id', 'source_key']).doNothing())
      .returning('id')
      .execute();
    for (const row of done) inserted.add(row.id);
  }
  const toQueue = events
    .map((event, index) => ({ event, id: rows[index]!.id }))
    .filter(({ id }) => kind !== 'event' || inserted.has(id));
  for (let at = 0; at < toQueue.length; at += 1000) {
    await trx
      .insertInto('webhook_deliveries')
      .values(
        toQueue.slice(at, at + 1000).map(({ event, id }) => ({
          id: newDeliveryId(),
          webhook_id: event.webhookId,
          account_id: event.accountId,
          event_id: id,
          network: event.network,
          kind,
          status: 'pending' as const,
          ready_block: event.readyBlock ?? null,
          ready_final: event.readyFinal ?? false,
        })),
      )
      .execute();
  }
  if (toQueue.length > 0) await sql`select pg_notify(${deliveriesChannel}, '')`.execute(trx);
  return { queued: toQueue.length, eventIds: rows.map((row) => row.id) };
}
