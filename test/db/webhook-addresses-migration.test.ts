import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { migrateUpTo, runMigration } from '../support/migrate-up-to.ts';

const target = '2026-12-03T0900-webhook-addresses';

/** The migration that gives webhook addresses their own table copies the lists of existing webhooks into it. */
describe(`migration ${target}`, () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(async () => {
    await database?.close();
  });

  it('copies config.addresses (lower-case, once each), sets address_filter and address_count, and keeps the JSON', async () => {
    const db = database.db;
    await migrateUpTo(db, target);
    await sql`insert into accounts (id, name, plan) values ('acc_1', 'a', 'free')`.execute(db);
    const insert = (id: string, config: unknown) =>
      sql`insert into webhooks (id, account_id, url, chain, network, event_type, config, payload_format, status, secret_ciphertext, start_seq)
          values (${id}, 'acc_1', 'https://example.com', 'ethereum', 'ethereum/devnet', 'address_activity',
                  ${JSON.stringify(config)}::jsonb, 'snake_case', 'active', 'x', 0)`.execute(db);
    const a = `0x${'a'.repeat(40)}`;
    const b = `0x${'b'.repeat(40)}`;
    await insert('wh_list', { addresses: [a, b.toUpperCase().replace('0X', '0x'), b], min_value: '5' });
    await insert('wh_none', { confirmations: 2 });
    await insert('wh_empty', { addresses: [] });

    await runMigration(db, target);
    const rows = await db
      .selectFrom('webhooks')
      .select(['id', 'address_filter', 'address_count', 'config'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: 'wh_empty', address_filter: false, address_count: 0, config: { addresses: [] } },
      {
        id: 'wh_list',
        address_filter: true,
        address_count: 2,
        config: { addresses: [a, b.toUpperCase().replace('0X', '0x'), b], min_value: '5' },
      },
      { id: 'wh_none', address_filter: false, address_count: 0, config: { confirmations: 2 } },
    ]);
    const addresses = await db.selectFrom('webhook_addresses').selectAll().orderBy('address').execute();
    expect(addresses).toEqual([
      { webhook_id: 'wh_list', address: a },
      { webhook_id: 'wh_list', address: b },
    ]);
    // Deleting a webhook takes its addresses with it.
    await db.deleteFrom('webhooks').where('id', '=', 'wh_list').execute();
    expect(await db.selectFrom('webhook_addresses').selectAll().execute()).toEqual([]);
  });
});
