import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/email/mailer.ts';
import { pauseWebhook } from '../../src/webhooks/pause-webhook.ts';
import { createPausedNotifier, type PausedNotice } from '../../src/webhooks/paused-notice.ts';
import { startPausedNoticeSender } from '../../src/webhooks/paused-notice-outbox.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const logger = pino({ level: 'silent' });

/**
 * The paused-webhook notice is written with the pause: a process that dies between the commit and the
 * mail leaves it to the next webhook worker, which sends it once; several workers share the rows.
 */
describe('paused-webhook notices survive the process that paused the webhook', () => {
  let t: TestDatabase;
  let outboxDir: string;
  let webhookCount = 0;
  beforeAll(async () => {
    t = await createTestDatabase();
    outboxDir = mkdtempSync(join(tmpdir(), 'blockyard-outbox-'));
    await t.db
      .insertInto('accounts')
      .values({ id: 'acct-n', name: 'Notice Co', plan: 'free', limits: '{}', email: 'ops@example.com' })
      .execute();
  });
  afterAll(async () => {
    await t?.close();
    if (outboxDir) rmSync(outboxDir, { recursive: true, force: true });
  });

  async function activeWebhook(): Promise<PausedNotice> {
    const id = `wh_notice_${++webhookCount}`;
    await t.db
      .insertInto('webhooks')
      .values({
        id,
        account_id: 'acct-n',
        url: 'https://receiver.example/hook',
        chain: 'ethereum',
        network: 'ethereum/devnet',
        event_type: 'address_activity',
        config: '{}',
        payload_format: 'snake_case',
        status: 'active',
        secret_ciphertext: 'unused',
        start_seq: '0',
      })
      .execute();
    return { webhookId: id, accountId: 'acct-n', url: 'https://receiver.example/hook', attempts: 6, lastError: 'answered 503' };
  }
  /** The worker's transaction: the webhook paused and its notice recorded, committed; then the process "dies". */
  const pauseAndDie = (notice: PausedNotice) =>
    t.db.transaction().execute((trx) => pauseWebhook(trx, notice, new Date(), logger));
  const unsent = async () =>
    (await t.db.selectFrom('webhook_paused_notices').select('id').where('sent_at', 'is', null).execute()).length;

  it('sends a notice left unsent by a dead process once, from the next worker to start', async () => {
    const notice = await pauseAndDie(await activeWebhook()).then(async (paused) => {
      expect(paused).toBe(true);
      return (await t.db.selectFrom('webhook_paused_notices').select('notice').executeTakeFirstOrThrow()).notice;
    });
    expect(await unsent()).toBe(1);
    // Paused already: no second notice.
    const again = await t.db
      .transaction()
      .execute((trx) => pauseWebhook(trx, notice as unknown as PausedNotice, new Date(), logger));
    expect(again).toBe(false);

    const mailer = createMailer({ from: 'blockyard@example.com', outboxDir, logger });
    const notify = createPausedNotifier({ db: t.db, mailer, logger });
    const restarted = startPausedNoticeSender({ db: t.db, notify, logger });
    await restarted.idle();
    const mails = readdirSync(outboxDir);
    expect(mails).toHaveLength(1);
    const mail = readFileSync(join(outboxDir, mails[0]!), 'utf8');
    expect(mail).toContain('Subject: Webhook wh_notice_1 paused');
    expect(mail).toContain('To: ops@example.com');
    expect(await unsent()).toBe(0);
    // Another worker, later: nothing left to send.
    const another = startPausedNoticeSender({ db: t.db, notify, logger });
    await another.idle();
    expect(readdirSync(outboxDir)).toHaveLength(1);
    await Promise.all([restarted.close(), another.close()]);
    await mailer.close();
  });

  it('shares the notices between workers running at once, each sent once', async () => {
    for (let i = 0; i < 25; i++) await pauseAndDie(await activeWebhook());
    const sent: string[] = [];
    const notify = async (notice: PausedNotice) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      sent.push(notice.webhookId);
    };
    const senders = [1, 2, 3].map(() => startPausedNoticeSender({ db: t.db, notify, logger }));
    await Promise.all(senders.map((sender) => sender.idle()));
    expect(sent).toHaveLength(25);
    expect(new Set(sent).size).toBe(25);
    expect(await unsent()).toBe(0);
    await Promise.all(senders.map((sender) => sender.close()));
  });

  it('keeps a notice whose sending failed, for a later try', async () => {
    const notice = await activeWebhook();
    await pauseAndDie(notice);
    let calls = 0;
    const failing = startPausedNoticeSender({
      db: t.db,
      notify: async () => {
        calls++;
        throw new Error('disk full');
      },
      logger,
    });
    await failing.idle();
    failing.wake();
    await failing.idle();
    // Tried once: the retry waits a minute, not the next wake.
    expect(calls).toBe(1);
    const row = await t.db
      .selectFrom('webhook_paused_notices')
      .select(['attempts', 'last_error', 'sent_at', sql`next_attempt_at > now()`.as('later')])
      .where('webhook_id', '=', notice.webhookId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ attempts: 1, last_error: 'disk full', sent_at: null, later: true });
    await failing.close();
  });
});
