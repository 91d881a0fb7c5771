import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

describe('Postgres connections that break', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  // Without the pool's error listener, this is an uncaught 'error' that ends the process (and fails the run).
  it('the server ending every idle connection crashes nothing; the service keeps answering', async () => {
    const { key } = await t.createKey();
    const before = await t.admin('GET', '/admin/accounts?limit=1');
    expect(before.status).toBe(200);

    // What a Postgres restart or an operator's pg_terminate_backend does to the pool's idle connections.
    const admin = new pg.Client({ connectionString: t.database.url });
    await admin.connect();
    try {
      const ended = await admin.query(
        `select pg_terminate_backend(pid) as ok from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid() and state = 'idle'`,
      );
      expect(ended.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }

    // The broken connections' errors arrive on their sockets; give them a moment.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const after = await t.admin('GET', '/admin/accounts?limit=1');
    expect(after.status).toBe(200);
    expect((await t.rpc(key, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })).status).toBe(200);
  });
});
