import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, eventually, readAnvilPid, runCli, startServer, stopAllCli } from '../support/cli.ts';

// A second process for other roles beside `npm start`, as the banner tells: `--join <data dir>`.
const startTimeoutMs = 90_000;

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'blockyard-join-'));
});
afterEach(async () => {
  await stopAllCli();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);
afterAll(() => stopAllCli());

const env = () => cliEnv({ BLOCKYARD_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });

async function blockNumber(url: string, key: string): Promise<string | undefined> {
  const response = await fetch(`${url}/v1/rpc/ethereum/devnet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
    signal: AbortSignal.timeout(5_000),
  });
  return ((await response.json()) as { result?: string }).result;
}

const devnetUrlIn = (banner: string) => /embedded devnet at (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];

describe('--join: more processes on the running service’s database and devnet', () => {
  it('a joined process serves the same chain and keys, starts no devnet or Postgres, and outlives a restart of the first', async () => {
    const first = await startServer({ env: env(), cwd: dataDir, timeoutMs: startTimeoutMs });
    const banner = first.cli.stdout();
    expect(banner).toContain(`npm start -- --join ${dataDir} --roles indexer`);
    // The shared DATABASE_URL is shown with the password read from its file, never the password itself.
    const password = readFileSync(join(dataDir, 'postgres', 'password'), 'utf8').trim();
    expect(banner).toContain(`$(cat ${join(dataDir, 'postgres', 'password')})@127.0.0.1:`);
    expect(banner).not.toContain(password);
    const devnetUrl = devnetUrlIn(banner)!;
    const anvilPid = readAnvilPid(dataDir);

    const joined = await startServer({
      env: env(),
      cwd: dataDir,
      args: ['--join', dataDir, '--roles', 'api'],
      timeoutMs: startTimeoutMs,
    });
    const joinedBanner = joined.cli.stdout();
    expect(joinedBanner).toContain(`Joined:         the Blockyard running on ${dataDir} (pid ${first.cli.pid})`);
    expect(devnetUrlIn(joinedBanner)).toBe(devnetUrl);
    expect(joined.url).not.toBe(first.url);
    // The same database: the same dev key; the same chain: the same head. Nothing of its own was started.
    expect(joined.key).toBe(first.key);
    expect(readAnvilPid(dataDir)).toBe(anvilPid);
    expect(joinedBanner).not.toContain('Database:');
    // The same chain: both answer the same head (asked together: the devnet mines a block a second).
    const sameHead = async (a: { url: string; key: string }, b: { url: string; key: string }) => {
      const [theirs, ours] = await Promise.all([blockNumber(a.url, a.key), blockNumber(b.url, b.key)]);
      return ours !== undefined && ours === theirs ? true : undefined;
    };
    await eventually(() => sameHead(first, joined), {
      timeoutMs: 15_000,
      what: 'the joined process to read the first one’s devnet',
    });

    // The first restarts on the same devnet port and database port: the joined one carries on.
    await first.cli.stop(20_000);
    const again = await startServer({ env: env(), cwd: dataDir, timeoutMs: startTimeoutMs });
    expect(devnetUrlIn(again.cli.stdout())).toBe(devnetUrl);
    await eventually(() => sameHead(again, joined), {
      timeoutMs: 30_000,
      what: 'the joined process to answer again after the first restarted',
    });
    expect(joined.cli.exitInfo).toBeUndefined();
  }, 240_000);

  it('refuses to start when nothing runs on the data directory, or with --demo', async () => {
    const nothing = await runCli(['start', '--join', dataDir], { env: env(), cwd: dataDir, timeoutMs: 60_000 });
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain(`no Blockyard is running on the data directory ${dataDir}`);
    expect(readAnvilPid(dataDir)).toBeUndefined();

    const demo = await runCli(['start', '--join', dataDir, '--demo'], { env: env(), cwd: dataDir, timeoutMs: 60_000 });
    expect(demo.code).toBe(2);
    expect(demo.stderr).toContain('invalid setting --join: cannot go with --demo');
  }, 120_000);
});
