import { type Kysely, sql } from 'kysely';
import type { Principal } from '../auth/principal.ts';
import { notFound } from '../core/errors.ts';
import type { Tables } from '../db/tables.ts';
import { newDeliveryId } from './ids.ts';
import { readOwnedWebhook } from './owned-webhook.ts';

/** A new delivery of the same event as one of the webhook's deliveries (same event id), queued now. */
export async function redeliver(
  deps: { db: Kysely<Tables>; queued: () => void },
  principal: Principal,
  id: string,
  deliveryId: string,
): Promise<{ delivery_id: string; event_id: string }> {
  const { db } = deps;
  const row = await readOwnedWebhook(db, principal, id);
  const original = await db
    .selectFrom('webhook_deliveries')
    .select(['event_id', 'network'])
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', id)
    .executeTakeFirst();
  if (!original) throw notFound(`delivery '${deliveryId}' of webhook '${id}' does not exist`);
  const newId = newDeliveryId();
  await db
    .insertInto('webhook_deliveries')
    .values({
      id: newId,
      webhook_id: id,
      account_id: row.account_id,
      event_id: original.event_id,
      network: original.network,
      kind: 'redelivery',
      status: 'pending',
    })
    .execute();
  await sql`select pg_notify('blockyard_webhook_deliveries', '')`.execute(db);
  deps.queued();
  return { delivery_id: newId, event_id: original.event_id };
}
