import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDueWebhooks } from '../../src/webhooks/claim-deliveries.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const network = 'ethereum/devnet';

/** The delivery worker's probe: which webhooks have something to send now. */
describe('finding the webhooks with a delivery due', () => {
  let t: TestDatabase;

  async function webhook(id: string, status: 'active' | 'paused') {
    await sql`insert into webhooks (id, account_id, url, chain, network, event_type, config, payload_format, status,
                secret_ciphertext, start_seq)
              values (${id}, 'acc_1', 'http://127.0.0.1:9/', 'ethereum', ${network}, 'address_activity', '{}',
                      'snake_case', ${status}, 'x', 0)`.execute(t.db);
  }

  async function delivery(webhookId: string, n: number, kind: 'event' | 'test', dueInMs = 0) {
    const id = `${webhookId}_${n}`;
    await sql`insert into webhook_events (id, webhook_id, source_key, event_type, block_number, data, test)
              values (${`evt_${id}`}, ${webhookId}, ${`src_${id}`}, 'address_activity', null, '{}', ${kind === 'test'})`.execute(
      t.db,
    );
    await sql`insert into webhook_deliveries (id, webhook_id, account_id, event_id, network, kind, status, next_attempt_at)
              values (${`dlv_${id}`}, ${webhookId}, 'acc_1', ${`evt_${id}`}, ${network}, ${kind}, 'pending',
                      now() + ${`${dueInMs} milliseconds`}::interval)`.execute(t.db);
  }

  beforeAll(async () => {
    t = await createTestDatabase();
    await sql`insert into accounts (id, name, plan) values ('acc_1', 'a', 'growth')`.execute(t.db);
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
    await delivery('wh_paused_later', 0, 'test', 3_600_000);
    await delivery('wh_active_later', 0, 'event', 3_600_000);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('finds an active webhook with a due delivery and a paused one only for its due test events', async () => {
    expect(new Set(await findDueWebhooks(t.db, 10))).toEqual(new Set(['wh_active', 'wh_paused_test']));
    expect(await findDueWebhooks(t.db, 1)).toHaveLength(1);
  });
});
