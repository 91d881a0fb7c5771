import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, stopAllCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** `blockyard migrate --help` prints its usage; `--dry-run` lists what is pending and changes nothing (issue 35, item 8). */
describe('blockyard migrate --help and --dry-run', () => {
  let dir: string;
  let database: TestDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'blockyard-cli-migrate-options-'));
    database = await createTestDatabase({ migrate: false });
  }, 60_000);
  afterAll(async () => {
    await stopAllCli();
    await database?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const migrate = (args: string[], env: Record<string, string | undefined> = {}) =>
    runCli(['migrate', ...args], { env: cliEnv(env), cwd: dir, timeoutMs: 60_000 });
  const tables = async () =>
    (
      await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = 'public'`.execute(
        database.db,
      )
    ).rows[0]!.n;

  it('--help and -h print the usage, naming --dry-run, and exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const result = await migrate([flag]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^Usage: blockyard migrate \[--dry-run\]/);
      expect(result.stdout).toMatch(/--dry-run +list the pending migrations/);
      expect(result.stderr).toBe('');
    }
  }, 60_000);

  it('an unknown option is refused, exit 2, naming it', async () => {
    const result = await migrate(['--dry-runn']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'--dry-runn'");
  }, 60_000);

  it('--dry-run lists every pending migration and changes nothing; migrate then applies exactly those', async () => {
    const env = { DATABASE_URL: database.url };
    const dry = await migrate(['--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    const listed = JSON.parse(dry.stdout) as { database: string; dry_run: boolean; pending: string[] };
    expect(listed).toMatchObject({ database: expect.stringMatching(/^127\.0\.0\.1:\d+\/bk_test_/), dry_run: true });
    expect(listed.pending[0]).toBe('2026-11-23T1000-accounts-and-keys');
    expect(listed.pending.length).toBeGreaterThan(10);
    expect(await tables()).toBe(0);

    const applied = await migrate([], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect((JSON.parse(applied.stdout) as { applied: string[] }).applied).toEqual(listed.pending);

    const again = await migrate(['--dry-run'], env);
    expect(JSON.parse(again.stdout)).toEqual({ database: listed.database, dry_run: true, pending: [] });
  }, 120_000);

  it('--dry-run without a database yet creates none (the embedded one is not made)', async () => {
    const dataDir = join(dir, 'fresh');
    const result = await migrate(['--dry-run', '--data-dir', dataDir]);
    expect(result.code, result.stderr).toBe(0);
    const body = JSON.parse(result.stdout) as { database: string; pending: string[] };
    expect(body.database).toMatch(/^embedded, not created yet/);
    expect(body.pending[0]).toBe('2026-11-23T1000-accounts-and-keys');
    expect(existsSync(join(dataDir, 'postgres'))).toBe(false);
  }, 60_000);
});
