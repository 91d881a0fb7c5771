import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueDeliveries, lockServedWebhook } from '../../src/webhooks/claim-deliveries.ts';
import type { DeliveryUpdate } from '../../src/webhooks/plan-delivery-outcomes.ts';
import { recordAttempts } from '../../src/webhooks/record-attempts.ts';
import type { SentDelivery } from '../../src/webhooks/send-claimed.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertWebhookRows } from './webhook-rows.ts';

const network = 'ethereum/devnet';
const url = 'http://127.0.0.1:9/hook?token=a"b\\c';

/** Bodies, headers and answers whose text is hard to carry in a Postgres array literal. */
const awkward = [
  { body: '{"quote":"a\\"b","slash":"c\\\\d","brace":"{x,y}"}', response: 'NULL', status: 200, error: null },
  { body: '{"unicode":"zwölf € 🦊","comma":"a,b"}', response: null, status: null, error: 'connection to 127.0.0.1:9 refused' },
  { body: '{"empty":""}', response: '', status: 500, error: 'answered 500' },
  { body: '{"nul":"\\u0000 stays escaped"}', response: '  spaced "out"  ', status: 204, error: null },
  // A receiver's answer with a NUL character, which Postgres text cannot hold: kept as U+FFFD.
  { body: '{}', response: 'ok\u0000\u0000done', status: 200, error: null, stored: 'ok\uFFFD\uFFFDdone' },
];

/**
 * The delivery log and the outcomes are written by one prepared statement from parallel arrays
 * (record-attempts.ts); the webhook is locked and read in one round trip (claim-deliveries.ts).
 */
describe('locking a webhook, claiming and recording a batch', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    const { db } = t;
    await insertWebhookRows(db, ['wh_1'], { url });
    for (let index = 0; index < 11; index++) {
      await sql`insert into webhook_events (id, webhook_id, source_key, event_type, block_number, data)
                values (${`evt_${index}`}, 'wh_1', ${`src_${index}`}, 'address_activity', ${index}, ${JSON.stringify({ n: index })})`.execute(
        db,
      );
      await sql`insert into webhook_deliveries (id, webhook_id, account_id, event_id, network, kind, status)
                values (${`dlv_${index}`}, 'wh_1', 'acc_1', ${`evt_${index}`}, ${network}, 'event', 'pending')`.execute(db);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('answers the webhook with its plan, busy while another transaction holds it, gone when there is none', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstLocked: (value: unknown) => void = () => undefined;
    const first = new Promise((resolve) => {
      firstLocked = resolve;
    });
    const holder = t.db.transaction().execute(async (trx) => {
      const locked = await lockServedWebhook(trx, 'wh_1');
      firstLocked(locked);
      await held;
    });
    const locked = (await first) as Awaited<ReturnType<typeof lockServedWebhook>>;
    if (typeof locked === 'string') throw new Error(`the free webhook was ${locked}`);
    expect(locked.webhook).toMatchObject({ id: 'wh_1', account_id: 'acc_1', url, status: 'active', plan: 'growth' });
    expect(Math.abs(locked.now().getTime() - Date.now())).toBeLessThan(5_000);
    expect(await t.db.transaction().execute((trx) => lockServedWebhook(trx, 'wh_1'))).toBe('busy');
    release();
    await holder;
    expect(await t.db.transaction().execute((trx) => lockServedWebhook(trx, 'wh_none'))).toBe('gone');
  });

  it('logs every attempt as sent and answered, and moves every delivery, batch after batch', async () => {
    const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 123);
    for (const batch of [5, 6]) {
      await t.db.transaction().execute(async (trx) => {
        const claimed = await claimDueDeliveries(trx, { id: 'wh_1', status: 'active' }, batch);
        expect(claimed).toHaveLength(batch);
        const sent: SentDelivery[] = claimed.map((delivery, index) => {
          const shape = awkward[index % awkward.length]!;
          return {
            delivery,
            at,
            request: { headers: { 'content-type': 'application/json', 'x-odd': `"${delivery.id}"\\` }, body: shape.body },
            result: {
              ok: shape.status !== null && shape.status < 300,
              status: shape.status,
              responseBody: shape.response,
              retryAfter: undefined,
              latencyMs: index + 1,
              error: shape.error,
            },
          };
        });
        const updates: DeliveryUpdate[] = sent.map(({ delivery, result }, index) => ({
          id: delivery.id,
          status: result.ok ? 'succeeded' : 'pending',
          // Retries an hour on: not due again in the next batch.
          next: new Date(at.getTime() + 3_600_000 + 1_000 * index),
          note: result.ok ? null : `attempt 1 failed: ${result.error}, "quoted"`,
          outcome: result.ok ? 'delivered' : 'retrying',
        }));
        await recordAttempts(trx, { id: 'wh_1', url }, sent, updates);

        const logged = await trx
          .selectFrom('webhook_attempts')
          .selectAll()
          .where(
            'delivery_id',
            'in',
            claimed.map((delivery) => delivery.id),
          )
          .orderBy('id')
          .execute();
        expect(logged).toHaveLength(batch);
        for (const [index, row] of logged.entries()) {
          const { delivery, request, result } = sent[index]!;
          expect(row).toMatchObject({
            delivery_id: delivery.id,
            webhook_id: 'wh_1',
            attempt: 1,
            request_url: url,
            request_headers: request.headers,
            request_body: request.body,
            response_status: result.status,
            response_body: awkward[index % awkward.length]!.stored ?? result.responseBody,
            latency_ms: result.latencyMs,
            error: result.error,
          });
          expect(new Date(row.attempted_at).toISOString()).toBe(at.toISOString());
        }
        const moved = await trx
          .selectFrom('webhook_deliveries')
          .select(['id', 'status', 'attempts', 'next_attempt_at', 'note'])
          .where(
            'id',
            'in',
            claimed.map((delivery) => delivery.id),
          )
          .execute();
        for (const update of updates) {
          const row = moved.find((candidate) => candidate.id === update.id)!;
          expect(row).toMatchObject({ status: update.status, attempts: 1, note: update.note });
          expect(new Date(row.next_attempt_at).toISOString()).toBe(update.next.toISOString());
        }
      });
    }
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from webhook_attempts`.execute(t.db);
    expect(rows[0]!.n).toBe(11);
  });

  it("deletes a delivery's attempts with it, and a webhook's with the webhook", async () => {
    const count = async (table: 'webhook_attempts' | 'webhook_deliveries') =>
      (
        await t.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    await t.db.deleteFrom('webhook_deliveries').where('id', 'in', ['dlv_0', 'dlv_1']).execute();
    expect(await count('webhook_attempts')).toBe('9');
    await t.db.deleteFrom('webhooks').where('id', '=', 'wh_1').execute();
    expect(await count('webhook_deliveries')).toBe('0');
    expect(await count('webhook_attempts')).toBe('0');
  });
});
