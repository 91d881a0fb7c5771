import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cliEnv, runCli, stopAllCli } from '../support/cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/** A bad setting must stop the start before anything slow (database, devnet) is touched. */
const failFastMs = 25_000;

describe('blockyard start: a bad setting stops the start, naming it', { timeout: 60_000 }, () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'blockyard-cli-config-'));
  });
  afterEach(async () => {
    await stopAllCli();
    rmSync(dir, { recursive: true, force: true });
  });

  function start(env: Record<string, string>) {
    return runCli(['start'], {
      env: cliEnv({ BLOCKYARD_DATA_DIR: join(dir, 'data'), PORT: '0', ...env }),
      cwd: dir,
      timeoutMs: 45_000,
    });
  }

  function expectStoppedEarly(result: Awaited<ReturnType<typeof start>>) {
    expect(result.code, result.stderr).toBe(2);
    expect(result.durationMs).toBeLessThan(failFastMs);
    expect(result.stdout).not.toContain('Blockyard is running');
    // Nothing was created: no database, no devnet.
    expect(existsSync(join(dir, 'data', 'pglite'))).toBe(false);
    expect(existsSync(join(dir, 'data', 'devnet'))).toBe(false);
  }

  it('a chain of an unknown kind: names chains[0].kind and lists the allowed kinds', async () => {
    const configFile = join(dir, 'blockyard.yaml');
    writeFileSync(
      configFile,
      stringify({
        chains: [
          { chain: 'bitcoin', network: 'mainnet', chain_id: 1, kind: 'bitcoin', upstreams: [{ url: 'http://127.0.0.1:1' }] },
        ],
      }),
    );
    const result = await start({ BLOCKYARD_CONFIG: configFile });
    expectStoppedEarly(result);
    expect(result.stderr).toContain('chains[0].kind');
    expect(result.stderr).toMatch(/evm, solana/);
  });

  it('PORT=abc names PORT', async () => {
    const result = await start({ PORT: 'abc' });
    expectStoppedEarly(result);
    expect(result.stderr).toMatch(/invalid setting PORT\b/);
  });

  it('an unknown top-level key in ./blockyard.yaml is named', async () => {
    writeFileSync(join(dir, 'blockyard.yaml'), 'colour: blue\n');
    const result = await start({});
    expectStoppedEarly(result);
    expect(result.stderr).toMatch(/colour/);
    expect(result.stderr).toMatch(/unknown setting/);
  });

  it('an unknown command exits 2 with the usage', async () => {
    const result = await runCli(['nosuchcommand'], { env: cliEnv(), cwd: dir, timeoutMs: 45_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'nosuchcommand'");
    expect(result.stderr).toContain('Usage:');
    expect(result.stderr).toContain('blockyard start');
  });
});

describe('blockyard migrate', () => {
  let dir: string;
  let database: TestDatabase | undefined;
  afterAll(async () => {
    await stopAllCli();
    await database?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('applies the dated migrations once and prints JSON; a second run applies none', async () => {
    dir = mkdtempSync(join(tmpdir(), 'blockyard-cli-migrate-'));
    // The embedded Postgres in the data directory, unless this run targets DATABASE_URL's server.
    if (process.env.DATABASE_URL) database = await createTestDatabase({ migrate: false });
    const env = cliEnv({ DATABASE_URL: database?.url });
    const migrate = () => runCli(['migrate', '--data-dir', dir], { env, cwd: dir, timeoutMs: 90_000 });

    const first = await migrate();
    expect(first.code, first.stderr).toBe(0);
    const firstBody = JSON.parse(first.stdout) as { database: string; applied: string[] };
    expect(firstBody.database).toMatch(/^127\.0\.0\.1:\d+\/\w+$/);
    expect(firstBody.applied.length).toBeGreaterThanOrEqual(1);
    expect(firstBody.applied).toContain('2026-11-23T1000-accounts-and-keys');
    for (const name of firstBody.applied) expect(name).toMatch(/^\d{4}-\d{2}-\d{2}T\d{4}-[a-z0-9-]+$/);
    expect(existsSync(join(dir, 'postgres', 'data', 'PG_VERSION'))).toBe(database === undefined);
    // It stopped its embedded server and gave the data directory back.
    expect(existsSync(join(dir, 'postgres', 'data', 'postmaster.pid'))).toBe(false);
    expect(existsSync(join(dir, 'blockyard.pid'))).toBe(false);

    const second = await migrate();
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ database: firstBody.database, applied: [] });
  }, 180_000);
});
