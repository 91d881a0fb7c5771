import { type Kysely, sql } from 'kysely';
import type { Tables } from '../db/tables.ts';

/**
 * The lock a delivery round holds for its whole transaction (`lockServedWebhook`), taken without
 * waiting: held by this transaction when it answers true.
 */
async function tryLockWebhook(trx: Kysely<Tables>, webhookId: string): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(hashtext('webhook:' || ${webhookId}::text)) as locked`.execute(trx);
  return rows[0]?.locked === true;
}

/**
 * Deletes a webhook and everything recorded for it. While a worker is sending its deliveries (their
 * rows locked until the receiver answers, up to the timeout for each of a round's batch), deleting
 * them would wait that long: the webhook is then marked deleted and disabled instead (gone for the
 * API at once, matched and sent no more) and `sweepDeletedWebhooks` removes it after the round.
 */
export async function deleteWebhook(db: Kysely<Tables>, accountId: string, webhookId: string): Promise<'deleted' | 'marked'> {
  return db.transaction().execute(async (trx) => {
    if (await tryLockWebhook(trx, webhookId)) {
      await trx.deleteFrom('webhooks').where('id', '=', webhookId).where('account_id', '=', accountId).execute();
      return 'deleted';
    }
    const now = new Date();
    await trx
      .updateTable('webhooks')
      .set({ status: 'disabled', status_reason: 'deleted by its owner', disabled_by: null, deleted_at: now, updated_at: now })
      .where('id', '=', webhookId)
      .where('account_id', '=', accountId)
      .execute();
    return 'marked';
  });
}

/** Removes the webhooks marked deleted whose delivery round has ended; the others wait for a later sweep. */
export async function sweepDeletedWebhooks(db: Kysely<Tables>, limit = 50): Promise<number> {
  const marked = await db.selectFrom('webhooks').select('id').where('deleted_at', 'is not', null).limit(limit).execute();
  let removed = 0;
  for (const { id } of marked) {
    const done = await db.transaction().execute(async (trx) => {
      if (!(await tryLockWebhook(trx, id))) return false;
      await trx.deleteFrom('webhooks').where('id', '=', id).where('deleted_at', 'is not', null).execute();
      return true;
    });
    if (done) removed += 1;
  }
  return removed;
}
