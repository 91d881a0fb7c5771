import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRow } from '../../src/usage/recorder.ts';
import { createUsageStore, type UsageStore } from '../../src/usage/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

const minuteMs = 60_000;
const start = Date.parse('2026-11-01T00:00:00Z');

function row(accountId: string, keyId: string, minute: number, method = 'eth_call'): UsageRow {
  return {
    minute: start + minute * minuteMs,
    accountId,
    keyId,
    network: 'ethereum/mainnet',
    method,
    statusClass: '2xx',
    requests: 1,
    computeUnits: 26,
  };
}

describe("each key's last request (the dashboard's last_used_at)", () => {
  let t: TestDatabase;
  let store: UsageStore;

  beforeAll(async () => {
    t = await createTestDatabase();
    store = createUsageStore(t.db);
  });
  afterAll(() => t?.close());

  it("finds every key's own latest minute, not the account's, and no other account's keys", async () => {
    const rows: UsageRow[] = [];
    // key-a busy for 3 days, key-b only in the first hour, key-c once in the middle; key-z another account's.
    for (let minute = 0; minute < 3 * 1440; minute += 7)
      rows.push(row('acct-1', 'key-a', minute), row('acct-1', 'key-a', minute, 'eth_getLogs'));
    for (let minute = 0; minute < 60; minute++) rows.push(row('acct-1', 'key-b', minute));
    rows.push(row('acct-1', 'key-c', 2000), row('acct-2', 'key-z', 5000));
    await store.write(rows);

    const lastUsed = await store.lastUsed('acct-1');
    expect(Object.fromEntries([...lastUsed].map(([key, at]) => [key, at.toISOString()]))).toEqual({
      'key-a': new Date(start + 4319 * minuteMs).toISOString(),
      'key-b': new Date(start + 59 * minuteMs).toISOString(),
      'key-c': new Date(start + 2000 * minuteMs).toISOString(),
    });
    expect((await store.lastUsed('acct-none')).size).toBe(0);
  });

  it('reads an index per key, not every row of the account', async () => {
    await sql`analyze usage_minutes`.execute(t.db);
    const { rows } = await sql<{ 'QUERY PLAN': string }>`
      explain select max(minute) from usage_minutes where account_id = 'acct-1' and key_id = 'key-b'`.execute(t.db);
    expect(rows.map((line) => line['QUERY PLAN']).join('\n')).toContain('usage_minutes_by_key');
  });
});
