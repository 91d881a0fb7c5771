import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueDeliveries } from '../../src/webhooks/claim-deliveries.ts';
import { matchRound } from '../../src/webhooks/matcher.ts';
import { recordAttempts } from '../../src/webhooks/record-attempts.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertWebhookRows } from './webhook-rows.ts';

const network = 'ethereum/devnet';

/**
 * A reorg takes back an event whose delivery a worker is sending right now (claimed, its row locked
 * while the POST waits for a slow receiver). The matcher must count it as sent and queue its removal,
 * without waiting for the worker: waiting held every webhook's matching behind that one receiver, and
 * the row it read before the worker committed said "not sent", so the removal was never queued.
 */
describe('a reorg while the removed event is being delivered', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    const { db } = t;
    await insertWebhookRows(db, ['wh_slow', 'wh_waiting'], { eventType: 'new_block' });
    await sql`insert into chain_events (seq, network, type, block_number, block_hash, data)
              values (1, ${network}, 'block', 7, ${`0x${'07'.repeat(32)}`}, '{}')`.execute(db);
    for (const webhook of ['wh_slow', 'wh_waiting']) {
      await sql`insert into webhook_events (id, webhook_id, source_key, chain_seq, event_type, block_number, data)
                values (${`evt_${webhook}`}, ${webhook}, 'chain:1', 1, 'new_block', 7, '{}')`.execute(db);
    }
    // wh_slow's delivery is due now; wh_waiting's waits (a retry later): neither was tried yet.
    await sql`insert into webhook_deliveries (id, webhook_id, account_id, event_id, network, kind, status, attempts, next_attempt_at)
              values ('dlv_slow', 'wh_slow', 'acc_1', 'evt_wh_slow', ${network}, 'event', 'pending', 0, now() - interval '1 second'),
                     ('dlv_waiting', 'wh_waiting', 'acc_1', 'evt_wh_waiting', ${network}, 'event', 'pending', 0, now() + interval '1 hour')`.execute(
      db,
    );
    await sql`insert into webhook_matcher_cursor (name, seq) values ('chain_events', 1)
              on conflict (name) do update set seq = excluded.seq`.execute(db);
    await sql`insert into chain_events (seq, network, type, block_number, block_hash, removed, removes_seq, data)
              values (2, ${network}, 'block', 7, ${`0x${'07'.repeat(32)}`}, true, 1, '{}')`.execute(db);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('queues the removal at once, leaves the worker its delivery, and does not retry it', async () => {
    let finishPost: () => void = () => {};
    const posting = new Promise<void>((resolve) => {
      finishPost = resolve;
    });
    let claimed: () => void = () => {};
    const claimedOnce = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    // The worker: claims the delivery, "sends" it until told to stop, then records that the receiver
    // did not answer in time (a retry in 10 s), as serveWebhook does.
    const worker = t.db.transaction().execute(async (trx) => {
      const rows = await claimDueDeliveries(trx, { id: 'wh_slow', status: 'active' }, 10);
      expect(rows.map((row) => row.id)).toEqual(['dlv_slow']);
      claimed();
      await Promise.race([posting, new Promise((resolve) => setTimeout(resolve, 8_000))]);
      const at = new Date();
      await recordAttempts(
        trx,
        { id: 'wh_slow', url: 'http://127.0.0.1:9/' },
        [
          {
            delivery: rows[0]!,
            at,
            request: { headers: {}, body: '{}' },
            result: {
              ok: false,
              status: null,
              responseBody: null,
              retryAfter: undefined,
              latencyMs: 15_000,
              error: 'no answer within 15 s',
            },
          },
        ],
        [
          {
            id: 'dlv_slow',
            status: 'pending',
            next: new Date(at.getTime() + 10_000),
            note: 'attempt 1 failed',
            outcome: 'retrying',
          },
        ],
      );
    });
    await claimedOnce;
    const started = Date.now();
    const round = await matchRound({
      db: t.db,
      webhooks: async () => [],
      enricher: { tokens: async () => new Map(), nfts: async () => new Map() },
      logger: pino({ level: 'silent' }),
    });
    const waited = Date.now() - started;
    finishPost();
    await worker;
    expect(waited).toBeLessThan(2_000);
    expect(round).toMatchObject({ ran: true, events: 1, queued: 1 });
    const { rows } = await sql<{ id: string; status: string; removes: string | null }>`
      select d.id, d.status, e.removes_event_id as removes
      from webhook_deliveries d join webhook_events e on e.id = d.event_id
      order by e.removed, d.webhook_id`.execute(t.db);
    // The removal is queued; the original's failed attempt is not retried (it would follow its removal).
    expect(rows.map(({ status, removes }) => ({ status, removes }))).toEqual([
      { status: 'cancelled', removes: null },
      { status: 'cancelled', removes: null },
      { status: 'pending', removes: 'evt_wh_slow' },
    ]);
    const slow = await t.db
      .selectFrom('webhook_deliveries')
      .select(['attempts', 'note'])
      .where('id', '=', 'dlv_slow')
      .executeTakeFirstOrThrow();
    expect(slow.attempts).toBe(1);
    expect(slow.note).toContain('a reorg took back its block while this attempt was in flight');
  }, 60_000);
});
