import { sql } from 'kysely';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerMatcherBehindGauge } from '../../src/webhooks/delivery-metrics.ts';
import { matchRound } from '../../src/webhooks/matcher.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertWebhookRows } from './webhook-rows.ts';

const network = 'ethereum/devnet';
/** A full matcher page of removals (2,000) times 34 webhooks: 68,000 events, past 65,535 parameters. */
const removedEvents = 2_000;
const webhooks = 34;

/**
 * A deep reorg under many webhooks: every removed chain event was matched by every webhook. The round
 * must cancel what was not sent and queue a removal for what was, not fail (and retry forever, holding
 * every later event) on a statement with one parameter per webhook event.
 */
describe('a reorg that removes events matched by many webhooks', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    const { db } = t;
    const ids = Array.from({ length: webhooks }, (_, index) => `wh_${index + 1}`);
    await insertWebhookRows(db, ids, { eventType: 'new_block' });
    await sql`insert into chain_events (seq, network, type, block_number, block_hash, data)
              select n, ${network}, 'block', n, '0x' || lpad(to_hex(n), 64, '0'), '{}'
              from generate_series(1, ${removedEvents}) n`.execute(db);
    await sql`insert into webhook_events (id, webhook_id, source_key, chain_seq, event_type, block_number, data)
              select 'evt_' || w.id || '_' || c.seq, w.id, 'chain:' || c.seq, c.seq, 'new_block', c.block_number, '{}'
              from webhooks w cross join chain_events c`.execute(db);
    // Even blocks were already sent (they get a removal event); odd ones still wait (they are cancelled).
    await sql`insert into webhook_deliveries (id, webhook_id, account_id, event_id, network, kind, status, attempts)
              select 'dlv_' || e.id, e.webhook_id, 'acc_1', e.id, ${network}, 'event',
                     case when e.block_number % 2 = 0 then 'succeeded' else 'pending' end,
                     case when e.block_number % 2 = 0 then 1 else 0 end
              from webhook_events e`.execute(db);
    await sql`insert into webhook_matcher_cursor (name, seq) values ('chain_events', ${removedEvents})
              on conflict (name) do update set seq = excluded.seq`.execute(db);
    await sql`insert into chain_events (seq, network, type, block_number, block_hash, removed, removes_seq, data)
              select ${removedEvents} + n, ${network}, 'block', n, '0x' || lpad(to_hex(n), 64, '0'), true, n, '{}'
              from generate_series(1, ${removedEvents}) n`.execute(db);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('cancels the unsent deliveries and queues a removal for each sent one, in one round', async () => {
    const registry = new Registry();
    registerMatcherBehindGauge(t.db, registry);
    const behind = async () =>
      (await registry.getSingleMetric('blockyard_webhook_matcher_behind_events')!.get()).values[0]?.value;
    expect(await behind()).toBe(removedEvents);
    const round = await matchRound({
      db: t.db,
      webhooks: async () => [],
      enricher: { tokens: async () => new Map(), nfts: async () => new Map() },
      logger: pino({ level: 'silent' }),
    });
    const matched = webhooks * removedEvents;
    expect(round).toEqual({ ran: true, events: removedEvents, queued: matched / 2, more: true });
    const { rows } = await sql<{ kind: string; status: string; n: number }>`
      select case when e.removed then 'removal' else 'original' end as kind, d.status, count(*)::int as n
      from webhook_deliveries d join webhook_events e on e.id = d.event_id
      group by 1, 2 order by 1, 2`.execute(t.db);
    expect(rows).toEqual([
      { kind: 'original', status: 'cancelled', n: matched / 2 },
      { kind: 'original', status: 'succeeded', n: matched / 2 },
      { kind: 'removal', status: 'pending', n: matched / 2 },
    ]);
    const cursor = await t.db.selectFrom('webhook_matcher_cursor').select('seq').executeTakeFirstOrThrow();
    expect(String(cursor.seq)).toBe(String(2 * removedEvents));
    expect(await behind()).toBe(0);
  }, 120_000);
});
