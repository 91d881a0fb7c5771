import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueDeliveries, findDueWebhooks } from '../../src/webhooks/claim-deliveries.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertWebhookRows } from './webhook-rows.ts';

const network = 'ethereum/devnet';

/** The delivery worker's probe: which webhooks have something to send now. */
describe('finding the webhooks with a delivery due', () => {
  let t: TestDatabase;

  const webhook = (id: string, status: 'active' | 'paused') => insertWebhookRows(t.db, [id], { status });

  async function delivery(
    webhookId: string,
    n: number,
    kind: 'event' | 'test',
    dueInMs = 0,
    wait: { readyBlock: number; final: boolean } | null = null,
  ) {
    const id = `${webhookId}_${n}`;
    await sql`insert into webhook_events (id, webhook_id, source_key, event_type, block_number, data, test)
              values (${`evt_${id}`}, ${webhookId}, ${`src_${id}`}, 'address_activity', null, '{}', ${kind === 'test'})`.execute(
      t.db,
    );
    await sql`insert into webhook_deliveries (id, webhook_id, account_id, event_id, network, kind, status, next_attempt_at,
                ready_block, ready_final)
              values (${`dlv_${id}`}, ${webhookId}, 'acc_1', ${`evt_${id}`}, ${network}, ${kind}, 'pending',
                      now() + ${`${dueInMs} milliseconds`}::interval, ${wait?.readyBlock ?? null}, ${wait?.final ?? false})`.execute(
      t.db,
    );
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    await webhook('wh_active', 'active');
    await webhook('wh_paused_backlog', 'paused');
    await webhook('wh_paused_test', 'paused');
    await webhook('wh_paused_later', 'paused');
    await webhook('wh_active_later', 'active');
    for (let n = 0; n < 50; n++) {
      await delivery('wh_active', n, 'event');
      await delivery('wh_paused_backlog', n, 'event');
      await delivery('wh_paused_test', n, 'event');
    }
    await delivery('wh_paused_test', 50, 'test');
    // The index holds blocks 1-100 and counts 80 final.
    await sql`insert into index_blocks (network, number, hash, parent_hash, timestamp, gas_used, tx_count)
              select ${network}, n, 'h' || n, 'h' || (n - 1), now(), 0, 0 from generate_series(1, 100) n`.execute(t.db);
    await sql`insert into index_progress (network, indexed_block, head_block, final_block, blocks_per_second, transfers_per_second)
              values (${network}, 100, 100, 80, 0, 0)`.execute(t.db);
    await webhook('wh_waiting', 'active');
    await webhook('wh_confirmed', 'active');
    await webhook('wh_finalized_waiting', 'active');
    for (let n = 0; n < 200; n++) await delivery('wh_waiting', n, 'event', 0, { readyBlock: 101 + n, final: false });
    await delivery('wh_confirmed', 0, 'event', 0, { readyBlock: 150, final: false });
    await delivery('wh_confirmed', 1, 'event', 0, { readyBlock: 100, final: false });
    // Deep enough for the head, not yet final.
    await delivery('wh_finalized_waiting', 0, 'event', 0, { readyBlock: 90, final: true });
    await delivery('wh_paused_later', 0, 'test', 3_600_000);
    await delivery('wh_active_later', 0, 'event', 3_600_000);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('finds an active webhook with a due delivery and a paused one only for its due test events', async () => {
    expect(new Set(await findDueWebhooks(t.db, 10))).toEqual(new Set(['wh_active', 'wh_paused_test', 'wh_confirmed']));
    expect(await findDueWebhooks(t.db, 1)).toHaveLength(1);
  });

  it('takes a delivery that waits for confirmations once the index holds its block (or counts it final), not before', async () => {
    const claim = (id: string) =>
      t.db.transaction().execute(async (trx) => (await claimDueDeliveries(trx, { id, status: 'active' }, 100)).map((d) => d.id));
    expect(await claim('wh_confirmed')).toEqual(['dlv_wh_confirmed_1']);
    expect(await claim('wh_waiting')).toEqual([]);
    expect(await claim('wh_finalized_waiting')).toEqual([]);
    await sql`update index_progress set final_block = 90`.execute(t.db);
    expect(await findDueWebhooks(t.db, 10)).toContain('wh_finalized_waiting');
    expect(await claim('wh_finalized_waiting')).toEqual(['dlv_wh_finalized_waiting_0']);
  });
});
