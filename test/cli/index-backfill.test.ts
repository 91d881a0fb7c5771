import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { cliEnv, runCli, stopAllCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** `blockyard index backfill`: its flags, and a run that follows the job to its end with a progress line. */
describe('blockyard index backfill', () => {
  let service: TestService;
  let anvil: Devnet;
  let database: TestDatabase;
  let cwd: string;
  let origin: number;
  const env = cliEnv();

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'blockyard-cli-backfill-'));
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    // Blocks before the first start: the index starts above them.
    await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x3c'] }),
    });
    service = await startTestService({
      sharing: { anvil, database },
      chains: [
        {
          chain: 'acme',
          network: 'mainnet',
          chain_id: 31337,
          finality: 'depth',
          finality_depth: 2,
          upstreams: [{ url: anvil.url }],
          indexer: { enabled: true },
        },
      ],
    });
    // The index starts at the head it reads first; once anything is stored the origin is remembered.
    await service.service.indexers[0]!.waitFor(undefined, 30_000);
    const row = await service.database.db.selectFrom('index_origins').select('first_block').executeTakeFirstOrThrow();
    origin = Number(row.first_block);
    if (origin < 60) throw new Error(`the index started at ${origin}, below the blocks mined before it`);
  }, 60_000);
  afterAll(async () => {
    await stopAllCli();
    await service?.stop();
    await Promise.all([anvil?.stop(), database?.close()]);
    rmSync(cwd, { recursive: true, force: true });
  });

  const server = () => ['--url', service.url, '--admin-token', service.adminToken];

  it.each([
    [['--from', '1'], '--network is required'],
    [['--network', 'acme', '--from', '1'], '--network must be chain/network'],
    [['--network', 'acme/mainnet'], '--from is required'],
    [['--network', 'acme/mainnet', '--from', 'ten'], "--from must be a block number (a whole number), got 'ten'"],
    [['--network', 'acme/mainnet', '--from', '9', '--to', '3'], '--to (3) must not be below --from (9)'],
  ])(
    'refuses %j naming the flag',
    async (flags, message) => {
      const run = await runCli(['index', 'backfill', ...flags, ...server()], { env, cwd, timeoutMs: 30_000 });
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
    },
    40_000,
  );

  it('shows the server’s refusal of a range the index covers', async () => {
    const run = await runCli(
      ['index', 'backfill', '--network', 'acme/mainnet', '--from', '0', '--to', String(origin), ...server()],
      {
        env,
        cwd,
        timeoutMs: 30_000,
      },
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`must be below ${origin}`);
  }, 40_000);

  it('follows the job to its end with blocks/s, transfers/s and the time left', async () => {
    const run = await runCli(['index', 'backfill', '--network', 'acme/mainnet', '--from', '0', ...server()], {
      env,
      cwd,
      timeoutMs: 60_000,
    });
    expect(run.code).toBe(0);
    const job = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
    expect(job).toMatchObject({ network: 'acme/mainnet', from: 0, to: origin - 1, status: 'done', blocks_done: origin });
    expect(run.stderr).toMatch(/acme\/mainnet backfill \d+ 0-\d+ \[#+\] 100\.0% .* blocks\/s, .* transfers\/s, done/);
  }, 70_000);

  it('returns at once with --detach, and lists the jobs', async () => {
    const run = await runCli(
      ['index', 'backfill', '--network', 'acme/mainnet', '--from', '0', '--to', '3', '--detach', ...server()],
      {
        env,
        cwd,
        timeoutMs: 30_000,
      },
    );
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({ from: 0, to: 3 });
    const list = await runCli(['index', 'backfills', '--network', 'acme/mainnet', ...server()], { env, cwd, timeoutMs: 30_000 });
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as { backfills: unknown[] }).backfills.length).toBeGreaterThanOrEqual(2);
  }, 70_000);
});
