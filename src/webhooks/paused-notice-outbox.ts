import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.ts';
import type { PausedNotice } from './paused-notice.ts';

/** How often a webhook worker looks for notices left by a process that died, or due for a retry. */
const sweepMs = 60_000;
/** Notices one sweep takes at a time (each holds its row while it is mailed). */
const batchSize = 10;

/** Writes the notice in the transaction that pauses the webhook: it is sent after the commit, or by the next worker. */
export async function recordPausedNotice(trx: Kysely<Tables>, notice: PausedNotice): Promise<void> {
  await trx
    .insertInto('webhook_paused_notices')
    .values({
      webhook_id: notice.webhookId,
      account_id: notice.accountId,
      notice: JSON.stringify(notice),
    })
    .execute();
}

export interface PausedNoticeSender {
  /** Sends what is due now (after a pause committed); runs at most one sweep at a time. */
  wake(): void;
  /** Resolves when no sweep runs (tests). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Sends the recorded notices that are due, each once: a row is claimed with `for update skip locked`,
 * so several workers share them, and marked sent in the same transaction. A notice whose sending
 * throws is tried again later (1, 2, 4 ... 60 minutes). A process that dies after mailing but before
 * its commit leaves the row to be mailed again: at least once, never lost.
 */
export function startPausedNoticeSender(deps: {
  db: Kysely<Tables>;
  notify: (notice: PausedNotice) => Promise<void>;
  logger: Logger;
}): PausedNoticeSender {
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  async function sendBatch(): Promise<number> {
    return deps.db.transaction().execute(async (trx) => {
      const due = await trx
        .selectFrom('webhook_paused_notices')
        .select(['id', 'notice', 'attempts'])
        .where('sent_at', 'is', null)
        .where('next_attempt_at', '<=', sql<Date>`now()`)
        .orderBy('id')
        .limit(batchSize)
        .forUpdate()
        .skipLocked()
        .execute();
      for (const row of due) {
        const notice = row.notice as unknown as PausedNotice;
        try {
          await deps.notify(notice);
          await trx.updateTable('webhook_paused_notices').set({ sent_at: sql`now()` }).where('id', '=', row.id).execute();
        } catch (error) {
          const waitMinutes = Math.min(2 ** row.attempts, 60);
          deps.logger.error(
            { err: error, webhook: notice.webhookId, retryInMinutes: waitMinutes },
            'paused-webhook notice not sent',
          );
          await trx
            .updateTable('webhook_paused_notices')
            .set({
              attempts: row.attempts + 1,
              last_error: String((error as Error).message ?? error).slice(0, 500),
              next_attempt_at: sql`now() + make_interval(mins => ${waitMinutes})`,
            })
            .where('id', '=', row.id)
            .execute();
        }
      }
      return due.length;
    });
  }

  function wake(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      while (!closed && (await sendBatch()) === batchSize) {}
    })()
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'paused-webhook notices: sweep failed; tried again later'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          wake();
        }
      });
  }

  const timer = setInterval(wake, sweepMs);
  timer.unref();
  wake();
  return {
    wake,
    async idle() {
      while (running) await running;
    },
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
