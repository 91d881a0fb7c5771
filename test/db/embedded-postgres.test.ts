import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../src/db/embedded/embedded-postgres.ts';

const logger = pino({ level: 'silent' });
const dirs: string[] = [];
const servers: EmbeddedPostgres[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function start(dir: string): Promise<EmbeddedPostgres> {
  const server = await startEmbeddedPostgres({ dir, logger, settings: { fsync: 'off' } });
  servers.push(server);
  return server;
}

function newDir(): string {
  const parent = mkdtempSync(join(tmpdir(), 'blockyard-embedded-pg-'));
  dirs.push(parent);
  return join(parent, 'postgres');
}

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

describe('the embedded Postgres server', () => {
  it('is a real PostgreSQL on 127.0.0.1 that wants its password, and keeps its data across a restart on the same port', async () => {
    const dir = newDir();
    const first = await start(dir);
    expect(first.url).toMatch(/^postgres:\/\/blockyard:[^@]+@127\.0\.0\.1:\d+\/blockyard$/);
    expect((await query(first.url, 'show server_version_num')).rows[0].server_version_num >= '150000').toBe(true);
    expect((await query(first.url, 'show listen_addresses')).rows[0].listen_addresses).toBe('127.0.0.1');
    expect(statSync(join(dir, 'password')).mode & 0o777).toBe(0o600);

    const wrong = new URL(first.url);
    wrong.password = 'not-the-password';
    await expect(query(wrong.toString(), 'select 1')).rejects.toThrow(/password authentication failed/);

    await query(first.url, "create table kept (value text); insert into kept values ('across restarts')");
    await first.stop();
    expect(first.alive).toBe(false);
    await expect(query(first.url, 'select 1')).rejects.toThrow();

    const second = await start(dir);
    expect(second.port).toBe(first.port);
    expect(second.url).toBe(first.url);
    expect((await query(second.url, 'select value from kept')).rows).toEqual([{ value: 'across restarts' }]);
  }, 60_000);

  it('starts over a postmaster.pid that names a process which is not Postgres (a pid reused after a crash)', async () => {
    const dir = newDir();
    const first = await start(dir);
    await first.stop();
    const pidFile = join(dir, 'data', 'postmaster.pid');
    // What a crash leaves, with a pid that now belongs to another program (this test process).
    writeFileSync(pidFile, `${process.pid}\n${join(dir, 'data')}\n`);
    const second = await start(dir);
    expect((await query(second.url, 'select 1 as ok')).rows).toEqual([{ ok: 1 }]);
    expect(Number.parseInt(readFileSync(pidFile, 'utf8'), 10)).toBe(second.pid);
  }, 60_000);

  it('moves to another port when the one it used last is taken', async () => {
    const dir = newDir();
    const first = await start(dir);
    await first.stop();
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(first.port, '127.0.0.1', resolve));
    try {
      const second = await start(dir);
      expect(second.port).not.toBe(first.port);
      expect((await query(second.url, 'select 1 as ok')).rows).toEqual([{ ok: 1 }]);
      expect(readFileSync(join(dir, 'port'), 'utf8').trim()).toBe(String(second.port));
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 60_000);
});
