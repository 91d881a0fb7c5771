import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { cliEnv, eventually, spawnCli, stopAllCli } from '../support/cli.ts';
import { closedPort } from '../support/closed-port.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';

/**
 * REDIS_URL pointing at nothing (issue 35, item 8): the node starts (as with a chain node down at start)
 * but says at once, on stderr, in the banner and in a warn log line, that it is not ready and why,
 * naming the URL without its credentials; /healthz answers 503 naming Redis. It used to log
 * "blockyard ready" and answer every /v1 request 503. Needs no redis-server: nothing listens there.
 */
describe('blockyard start with a REDIS_URL nothing answers (real process)', () => {
  let dataDir: string;
  let database: TestDatabase;
  let anvil: Devnet;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'blockyard-redis-unreachable-'));
    [database, anvil] = await Promise.all([createTestDatabase(), startTestAnvil()]);
  }, 60_000);
  afterAll(async () => {
    await stopAllCli();
    await Promise.all([anvil?.stop(), database?.close()]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('says it is not ready and why at start, names the URL without credentials, and /healthz is 503 naming Redis', async () => {
    const port = await closedPort();
    const configFile = join(dataDir, 'blockyard.yaml');
    const chains = [{ chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, upstreams: [{ url: anvil.url }] }];
    writeFileSync(configFile, stringify({ chains }));
    const cli = spawnCli(['start'], {
      env: cliEnv({
        BLOCKYARD_DATA_DIR: dataDir,
        BLOCKYARD_CONFIG: configFile,
        PORT: '0',
        DATABASE_URL: database.url,
        REDIS_URL: `redis://blockyard:s3cret-password@127.0.0.1:${port}/0`,
        BLOCKYARD_ADMIN_TOKEN: 'test-admin-token-0123456789abcdef',
      }),
      cwd: dataDir,
    });
    const [, url] = (await cli.waitForOutput(/Blockyard is running at (http:\/\/127\.0\.0\.1:\d+)/, 60_000)) as [string, string];
    const named = `Redis at redis://127.0.0.1:${port}/0 (REDIS_URL) cannot be reached (connect ECONNREFUSED 127.0.0.1:${port})`;
    // Written right after the banner, on the other stream: it may arrive a moment later.
    await eventually(async () => (cli.stderr().includes('not ready') ? true : undefined), {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: 'stderr',
    });
    expect(cli.stderr()).toContain(`blockyard: not ready: ${named}: /healthz answers 503`);
    expect(cli.stdout()).toContain(`NOT READY:      ${named}`);
    const lines = cli
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.find((line) => line.msg.startsWith('blockyard started, not ready: Redis at'))?.level).toBe(40);
    expect(lines.some((line) => line.msg === 'blockyard ready')).toBe(false);
    expect(`${cli.stdout()}${cli.stderr()}`).not.toContain('s3cret-password');

    const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    expect(health.status).toBe(503);
    const report = (await health.json()) as { status: string; checks: Record<string, string> };
    expect(report.status).toBe('unavailable');
    expect(report.checks.redis).toMatch(/^error: not connected/);
    expect(report.checks.database).toBe('ok');
    expect((await cli.stop()).code).toBe(0);
  }, 120_000);
});
