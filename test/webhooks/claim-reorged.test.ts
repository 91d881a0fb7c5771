import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimDueDeliveries, findDueWebhooks } from '../../src/webhooks/claim-deliveries.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { insertWebhookRows } from './webhook-rows.ts';

const network = 'ethereum/devnet';
const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/**
 * The window between a reorg and the matcher cancelling what it dropped: the indexer has written the
 * removal events and indexed a new branch as high as the deliveries' ready_block, the deliveries are
 * still pending. A worker must not send them then.
 */
describe('a delivery waiting for confirmations whose block a reorg took back', () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    const { db } = t;
    await insertWebhookRows(db, ['wh_kept', 'wh_dropped'], { plan: 'free' });
    // Blocks 10-13 on the index now (the new branch after the reorg).
    for (let number = 10; number <= 13; number++) {
      await sql`insert into index_blocks (network, number, hash, parent_hash, timestamp, gas_used, tx_count)
                values (${network}, ${number}, ${hash(number + 100)}, ${hash(number + 99)}, now(), 0, 0)`.execute(db);
    }
    // Two events of block 10; the reorg took back the second (its removal event, written with the rollback).
    const seqs: string[] = [];
    for (const seen of [1, 2]) {
      const { rows } = await sql<{ seq: string }>`
        insert into chain_events (network, type, block_number, block_hash, data)
        values (${network}, 'native_transfer', 10, ${hash(seen)}, '{}') returning seq`.execute(db);
      seqs.push(rows[0]!.seq);
    }
    await sql`insert into chain_events (network, type, block_number, block_hash, removed, removes_seq, data)
              values (${network}, 'native_transfer', 10, ${hash(2)}, true, ${seqs[1]}, '{}')`.execute(db);
    for (const [index, webhook] of ['wh_kept', 'wh_dropped'].entries()) {
      await sql`insert into webhook_events (id, webhook_id, source_key, chain_seq, event_type, block_number, data)
                values (${`evt_${index}`}, ${webhook}, ${seqs[index]}, ${seqs[index]}, 'address_activity', 10, '{}')`.execute(db);
      await sql`insert into webhook_deliveries (id, webhook_id, account_id, event_id, network, kind, status, ready_block)
                values (${`dlv_${index}`}, ${webhook}, 'acc_1', ${`evt_${index}`}, ${network}, 'event', 'pending', 13)`.execute(
        db,
      );
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('is not due, while the one whose block stayed is', async () => {
    expect(await findDueWebhooks(t.db, 10)).toEqual(['wh_kept']);
    const kept = await t.db.transaction().execute((trx) => claimDueDeliveries(trx, { id: 'wh_kept', status: 'active' }, 10));
    expect(kept.map((delivery) => delivery.id)).toEqual(['dlv_0']);
    const dropped = await t.db
      .transaction()
      .execute((trx) => claimDueDeliveries(trx, { id: 'wh_dropped', status: 'active' }, 10));
    expect(dropped).toEqual([]);
  });
});
