import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparingPool } from '../../src/db/prepared-statements.ts';
import { createStallGuard } from '../../src/db/stall-guard.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * On a loaded host the guard's probe can go unanswered for its whole window while the server goes on
 * answering the service's queries. Here the probe's sessions go to a port that never answers (the
 * slow probe), the service's pool to the real server: a slow query must not be abandoned, nor the
 * database marked down, while other queries get their answers.
 */
describe('the stall guard on a server that answers queries but not the probe', () => {
  let database: TestDatabase;
  let silent: Server;
  const held = new Set<Socket>();
  let silentUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    silent = createServer((socket) => {
      held.add(socket);
      socket.on('close', () => held.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = new URL(database.url);
    url.port = String((silent.address() as { port: number }).port);
    silentUrl = url.toString();
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    await database?.close();
  });

  /** A slow query (1.2 s) beside, when `busy`, a quick query every 50 ms on another session. */
  async function slowQueryBeside(busy: boolean) {
    const guard = createStallGuard({ url: silentUrl, suspectAfterMs: 100, probeTimeoutMs: 400, recheckMs: 60_000 });
    const inner = new pg.Pool({ connectionString: database.url, max: 2 });
    const pool = guard.guard(preparingPool(inner));
    const [slowSession, quickSession] = [await pool.connect(), await pool.connect()];
    let quickAnswers = 0;
    let done = false;
    const quick = (async () => {
      for (const until = Date.now() + 5_000; busy && !done && Date.now() < until; await sleep(50)) {
        await quickSession.query('select 1', []);
        quickAnswers++;
      }
    })();
    const slow = await slowSession.query('select pg_sleep(1.2)', []).then(
      () => 'answered',
      (error: { code?: string }) => error.code,
    );
    done = true;
    await quick.catch(() => undefined);
    const down = guard.down;
    slowSession.release();
    quickSession.release();
    guard.close();
    await inner.end();
    return { slow, down, quickAnswers };
  }

  it('keeps a slow query and the database up while other queries answer', async () => {
    const { slow, down, quickAnswers } = await slowQueryBeside(true);
    expect(quickAnswers, 'quick queries answered meanwhile').toBeGreaterThan(5);
    expect(slow).toBe('answered');
    expect(down).toBe(false);
  });

  it('still gives up on the slow query when nothing answers beside the unanswered probe', async () => {
    const { slow, down } = await slowQueryBeside(false);
    expect(slow).toBe('service_unavailable');
    expect(down).toBe(true);
  });
});
