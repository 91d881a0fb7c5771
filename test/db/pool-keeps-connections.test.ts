import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** pg's pool closes a connection left idle this long unless told to keep it. */
const pgIdleTimeoutMs = 10_000;

describe('the database pool after a quiet spell', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
  });
  afterAll(() => database?.close());

  /** Runs `count` statements at once, each holding its connection for a moment; the backends that ran them. */
  async function backendsOfBurst(count: number): Promise<Set<number>> {
    const rows = await Promise.all(
      Array.from({ length: count }, () =>
        sql<{ pid: number }>`select pg_backend_pid() as pid, pg_sleep(0.2)`.execute(database.db),
      ),
    );
    return new Set(rows.map(({ rows: [row] }) => row!.pid));
  }

  it('serves the next burst on the sessions it already had, not on new ones', { timeout: 30_000 }, async () => {
    const first = await backendsOfBurst(6);
    expect(first.size).toBe(6);
    await new Promise((resolve) => setTimeout(resolve, pgIdleTimeoutMs + 1_500));
    const second = await backendsOfBurst(6);
    // A new session would cost a connect, an authentication and cold caches on the next request.
    expect([...second].sort()).toEqual([...first].sort());
  });
});
