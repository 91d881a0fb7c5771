import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.ts';
import type { Mailer } from '../email/mailer.ts';

/** What the account is told when a webhook is paused after its retries ran out. */
export interface PausedNotice {
  readonly webhookId: string;
  readonly accountId: string;
  readonly url: string;
  readonly attempts: number;
  readonly lastError: string;
}

/** Tells the account a webhook was paused after its retries ran out: by SMTP, or into the outbox folder. */
export function createPausedNotifier(deps: { db: Kysely<Tables>; mailer: Mailer; logger: Logger }) {
  return async (notice: PausedNotice): Promise<void> => {
    const account = await deps.db
      .selectFrom('accounts')
      .select(['id', 'name', 'email'])
      .where('id', '=', notice.accountId)
      .executeTakeFirst();
    const sent = await deps.mailer.send({
      to: account?.email ?? undefined,
      subject: `Webhook ${notice.webhookId} paused: deliveries to ${new URL(notice.url).host} failed`,
      text: [
        `Hello${account ? ` ${account.name}` : ''},`,
        '',
        `Your webhook ${notice.webhookId} (${notice.url}) was paused: a delivery failed ${notice.attempts} times in a row.`,
        `Last error: ${notice.lastError}`,
        '',
        'While it is paused, matching events are still recorded; nothing is lost. Once the endpoint works again,',
        'resume the webhook and the backlog is delivered in order:',
        '',
        `  curl -X PATCH <base url>/v1/webhooks/${notice.webhookId} -H "X-API-Key: <key>" -H "content-type: application/json" -d '{"status":"active"}'`,
        '',
        `The failed delivery stays in the delivery log (GET /v1/webhooks/${notice.webhookId}/deliveries?status=failed) and can be redelivered.`,
      ].join('\n'),
    });
    deps.logger.info({ webhook: notice.webhookId, via: sent.via, path: sent.path }, 'paused-webhook notice sent');
  };
}
