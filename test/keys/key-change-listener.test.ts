import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyChangeListener } from '../../src/accounts/key-change-listener.ts';
import type { ListenConnection } from '../../src/db/listen-connection.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

async function within(timeoutMs: number, check: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('the API key change listener on a real Postgres', () => {
  let database: TestDatabase;
  let listener: ListenConnection | undefined;
  const forgotten: string[] = [];
  let forgotAll = 0;
  beforeAll(async () => {
    database = await createTestDatabase();
    listener = await startKeyChangeListener({
      databaseUrl: database.url,
      authenticator: { forget: (keyId) => forgotten.push(keyId), forgetAll: () => forgotAll++ },
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await listener?.close();
    await database?.close();
  });

  it('forgets the key a NOTIFY names, once the change commits (not before)', async () => {
    await database.db.transaction().execute(async (trx) => {
      await sql`select pg_notify('blockyard_api_key_changed', 'key_committed')`.execute(trx);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(forgotten).toEqual([]);
    });
    expect(await within(2_000, () => forgotten.includes('key_committed'))).toBe(true);
    await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`select pg_notify('blockyard_api_key_changed', 'key_rolled_back')`.execute(trx);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(forgotten).not.toContain('key_rolled_back');
    expect(forgotAll).toBe(0);
  });

  it('after its connection breaks, it reconnects and forgets every key (changes may have been missed)', async () => {
    const terminated = await sql<{ count: string }>`
      select count(*) as count from (
        select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and query ilike 'LISTEN blockyard_api_key_changed%' and pid <> pg_backend_pid()
      ) as ended`.execute(database.db);
    expect(Number(terminated.rows[0]!.count)).toBe(1);
    expect(await within(5_000, () => forgotAll === 1)).toBe(true);
    await sql`select pg_notify('blockyard_api_key_changed', 'key_after_reconnect')`.execute(database.db);
    expect(await within(2_000, () => forgotten.includes('key_after_reconnect'))).toBe(true);
  });
});
