import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.ts';
import type { PausedNotice } from './paused-notice.ts';
import { recordPausedNotice } from './paused-notice-outbox.ts';

/** The endpoint answered 410 Gone: the webhook is disabled, by the endpoint. */
export async function disableGoneWebhook(trx: Kysely<Tables>, webhookId: string, now: Date, logger: Logger): Promise<void> {
  await trx
    .updateTable('webhooks')
    .set({
      status: 'disabled',
      disabled_by: 'endpoint',
      status_reason: 'the endpoint answered 410 Gone',
      updated_at: now,
    })
    .where('id', '=', webhookId)
    .execute();
  logger.warn({ webhook: webhookId }, 'webhook endpoint answered 410 Gone: webhook disabled');
}

/**
 * A delivery failed after every retry: the webhook is paused (if still active) until its owner resumes
 * it, and the account's notice is recorded with the pause (src/webhooks/paused-notice-outbox.ts sends it).
 * False when the webhook was no longer active (nothing paused, no notice).
 */
export async function pauseWebhook(trx: Kysely<Tables>, notice: PausedNotice, now: Date, logger: Logger): Promise<boolean> {
  const paused = await trx
    .updateTable('webhooks')
    .set({
      status: 'paused',
      status_reason: `a delivery failed after ${notice.attempts} attempts: ${notice.lastError}`,
      updated_at: now,
    })
    .where('id', '=', notice.webhookId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (paused.numUpdatedRows === 0n) return false;
  await recordPausedNotice(trx, notice);
  logger.warn({ webhook: notice.webhookId, attempts: notice.attempts }, 'webhook paused: a delivery failed after every retry');
  return true;
}
