import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparingPool } from '../../src/db/prepared-statements.ts';
import { createStallGuard } from '../../src/db/stall-guard.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * A probe session still opening when the guard closes: it used to be kept once it opened, and that
 * one connection kept a process whose start had failed from ever exiting (seen under load, when a
 * slow query had set a probe off just before the shutdown).
 */
describe('the stall guard closed while its probe session opens', () => {
  let database: TestDatabase;
  let proxy: Server;
  const open = new Set<Socket>();

  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(database.url);
    // Every session through it takes 400 ms to reach the server: the probe is still opening at close.
    proxy = createServer((client) => {
      open.add(client);
      client.on('close', () => open.delete(client));
      client.pause();
      setTimeout(() => {
        if (client.destroyed) return;
        const server = tcpConnect(Number(target.port), target.hostname, () => {
          client.pipe(server).pipe(client);
          client.resume();
        });
        server.on('error', () => client.destroy());
        client.on('error', () => server.destroy());
        client.on('close', () => server.destroy());
      }, 400);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of open) socket.destroy();
    await new Promise((resolve) => proxy?.close(resolve));
    await database?.close();
  });

  it('leaves no probe session open', async () => {
    const proxied = new URL(database.url);
    proxied.port = String((proxy.address() as { port: number }).port);
    const guard = createStallGuard({ url: proxied.toString(), suspectAfterMs: 50, probeTimeoutMs: 5_000 });
    const inner = new pg.Pool({ connectionString: database.url, max: 1 });
    const pool = guard.guard(preparingPool(inner));
    const client = await pool.connect();
    // Slower than suspectAfterMs: the guard opens a probe session through the proxy.
    const slow = client.query('select pg_sleep(0.3)', []);
    await expect.poll(() => open.size, { timeout: 2_000, interval: 10 }).toBe(1);
    guard.close();
    await slow;
    client.release();
    await inner.end();

    // The proxied session would be through by now: it must have been closed, not kept.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(open.size).toBe(0);
  });
});
