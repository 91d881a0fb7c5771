import type { Kysely } from 'kysely';
import { anyOf } from '../db/any-of.ts';
import type { Tables } from '../db/tables.ts';
import { resolveLimits } from '../limits/plans.ts';
import type { ClaimedDelivery, ServedWebhook } from './claim-deliveries.ts';
import { nextUtcDay } from './retry-schedule.ts';

/**
 * The plan's deliveries per UTC day (free: 1,000), counted on first attempts of real events: the
 * ones over the cap wait for the next UTC day, and their log says so. Answers the claimed deliveries
 * that may go now.
 */
export async function applyDailyCap(
  trx: Kysely<Tables>,
  webhook: Pick<ServedWebhook, 'account_id' | 'plan' | 'limits'>,
  claimed: ClaimedDelivery[],
  now: Date,
): Promise<ClaimedDelivery[]> {
  const accountId = webhook.account_id;
  const cap = resolveLimits(webhook.plan, webhook.limits).webhook_deliveries_per_day;
  const counted = claimed.filter((delivery) => delivery.attempts === 0 && delivery.kind !== 'test');
  if (cap === null || counted.length === 0) return claimed;
  const day = now.toISOString().slice(0, 10);
  await trx
    .insertInto('webhook_daily_usage')
    .values({ account_id: accountId, day, deliveries: 0 })
    .onConflict((oc) => oc.columns(['account_id', 'day']).doNothing())
    .execute();
  const usage = await trx
    .selectFrom('webhook_daily_usage')
    .select('deliveries')
    .where('account_id', '=', accountId)
    .where('day', '=', day)
    .forUpdate()
    .executeTakeFirstOrThrow();
  const room = Math.max(0, cap - usage.deliveries);
  const over = new Set(counted.slice(room).map((delivery) => delivery.id));
  await trx
    .updateTable('webhook_daily_usage')
    .set({ deliveries: usage.deliveries + Math.min(room, counted.length) })
    .where('account_id', '=', accountId)
    .where('day', '=', day)
    .execute();
  if (over.size > 0) {
    const tomorrow = nextUtcDay(now);
    await trx
      .updateTable('webhook_deliveries')
      .set({
        next_attempt_at: tomorrow,
        note: `waiting: the plan's ${cap} webhook deliveries a day are used; sent from ${tomorrow.toISOString()}`,
        updated_at: now,
      })
      .where(anyOf('id', [...over]))
      .execute();
  }
  return claimed.filter((delivery) => !over.has(delivery.id));
}
