import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.ts';
import { claimDueDeliveries, lockServedWebhook } from '../../src/webhooks/claim-deliveries.ts';
import { deleteWebhook, sweepDeletedWebhooks } from '../../src/webhooks/delete-webhook.ts';
import { readOwnedWebhook } from '../../src/webhooks/owned-webhook.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertWebhookRows } from './webhook-rows.ts';

const network = 'ethereum/devnet';
const owner = { accountId: 'acc_1' } as Principal;

/** Resolves with the promise's value, or rejects if it takes longer than `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)),
  ]);
}

/**
 * A webhook deleted while a worker sends its deliveries (the round's transaction holds them locked
 * until the receiver answers): the delete answers at once, the webhook is gone for its owner, and its
 * rows are removed once the round ends. Deleting the rows at once waited for the receiver.
 */
describe('deleting a webhook while its deliveries are being sent', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    await insertWebhookRows(t.db, ['wh_busy', 'wh_idle']);
    for (const webhook of ['wh_busy', 'wh_idle']) {
      await sql`insert into webhook_events (id, webhook_id, source_key, event_type, block_number, data)
                values (${`evt_${webhook}`}, ${webhook}, 'test:1', 'address_activity', 7, '{}')`.execute(t.db);
      await sql`insert into webhook_deliveries (id, webhook_id, account_id, event_id, network, kind, status, attempts, next_attempt_at)
                values (${`dlv_${webhook}`}, ${webhook}, 'acc_1', ${`evt_${webhook}`}, ${network}, 'event', 'pending', 0,
                        now() - interval '1 second')`.execute(t.db);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  const rowsOf = async (webhook: string) => ({
    webhooks: (await t.db.selectFrom('webhooks').select('id').where('id', '=', webhook).execute()).length,
    deliveries: (await t.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhook).execute()).length,
  });

  it('answers at once, hides the webhook, and removes its rows after the round', async () => {
    let endRound: () => void = () => {};
    const roundEnds = new Promise<void>((resolve) => {
      endRound = resolve;
    });
    let claimed: () => void = () => {};
    const claimedOnce = new Promise<void>((resolve) => {
      claimed = resolve;
    });
    const round = t.db.transaction().execute(async (trx) => {
      const locked = await lockServedWebhook(trx, 'wh_busy');
      expect(locked).not.toBe('busy');
      expect((await claimDueDeliveries(trx, { id: 'wh_busy', status: 'active' }, 10)).map((row) => row.id)).toEqual([
        'dlv_wh_busy',
      ]);
      claimed();
      await roundEnds;
    });
    await claimedOnce;

    expect(await within(3_000, deleteWebhook(t.db, 'acc_1', 'wh_busy'))).toBe('marked');
    await expect(readOwnedWebhook(t.db, owner, 'wh_busy')).rejects.toThrow(/does not exist/);
    const marked = await t.db
      .selectFrom('webhooks')
      .select(['status', 'deleted_at'])
      .where('id', '=', 'wh_busy')
      .executeTakeFirstOrThrow();
    expect(marked.status).toBe('disabled');
    expect(marked.deleted_at).not.toBeNull();
    // The round still holds it: nothing is removed yet, and the sweep does not wait for it.
    expect(await within(3_000, sweepDeletedWebhooks(t.db))).toBe(0);
    expect(await rowsOf('wh_busy')).toEqual({ webhooks: 1, deliveries: 1 });

    endRound();
    await round;
    expect(await sweepDeletedWebhooks(t.db)).toBe(1);
    expect(await rowsOf('wh_busy')).toEqual({ webhooks: 0, deliveries: 0 });
  });

  it('deletes an idle webhook and its rows at once', async () => {
    expect(await deleteWebhook(t.db, 'acc_1', 'wh_idle')).toBe('deleted');
    expect(await rowsOf('wh_idle')).toEqual({ webhooks: 0, deliveries: 0 });
  });

  it('touches no other account’s webhook', async () => {
    await insertWebhookRows(t.db, ['wh_other']);
    await sql`insert into accounts (id, name, plan) values ('acc_2', 'b', 'growth')`.execute(t.db);
    await sql`update webhooks set account_id = 'acc_2' where id = 'wh_other'`.execute(t.db);
    expect(await deleteWebhook(t.db, 'acc_1', 'wh_other')).toBe('deleted');
    expect((await rowsOf('wh_other')).webhooks).toBe(1);
  });
});
