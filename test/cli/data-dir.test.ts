import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, isAnvilRunning, killAnvils, readAnvilPid, runCli, startServer, stopAllCli } from '../support/cli.ts';

// These start the service as `npm start` does: the embedded devnet and the embedded Postgres in the data
// directory (whatever database the rest of this run uses).
const startTimeoutMs = 90_000;

let dataDir: string;
const orphans = new Set<number>();

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'blockyard-data-dir-'));
});
afterEach(async () => {
  await stopAllCli();
  // A failed test may leave a killed service's children: never leave them running.
  killAnvils(orphans);
  for (const pid of orphans) signal(pid, 'SIGQUIT');
  orphans.clear();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);
afterAll(() => stopAllCli());

const env = () => cliEnv({ BLOCKYARD_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn' });

function postgresPid(): number {
  return Number.parseInt(readFileSync(join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8'), 10);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8') !== '';
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name);
  } catch {
    // Gone.
  }
}

async function rpc(url: string, key: string, method: string, params: unknown[] = []) {
  const response = await fetch(`${url}/v1/rpc/ethereum/devnet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, body: (await response.json()) as { result?: string; error?: unknown } };
}

describe('one service per data directory', () => {
  it('a second start on the same data directory refuses at once, names the running one, and leaves it untouched', async () => {
    const first = await startServer({ env: env(), cwd: dataDir, timeoutMs: startTimeoutMs });
    const anvilPid = readAnvilPid(dataDir)!;
    const databasePid = postgresPid();

    const second = await runCli(['start'], { env: env(), cwd: dataDir, timeoutMs: 30_000 });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`pid ${first.cli.pid}`);
    expect(second.stderr).toContain(first.url);
    expect(second.stderr).toMatch(/--data-dir/);
    expect(second.stdout).not.toContain('Blockyard is running');

    // The first one's devnet and database are the same processes, and it answers as before.
    expect(readAnvilPid(dataDir)).toBe(anvilPid);
    expect(isAnvilRunning(anvilPid)).toBe(true);
    expect(postgresPid()).toBe(databasePid);
    expect(first.cli.exitInfo).toBeUndefined();
    expect((await fetch(`${first.url}/healthz`, { signal: AbortSignal.timeout(10_000) })).status).toBe(200);
    expect((await rpc(first.url, first.key, 'eth_blockNumber')).body.result).toMatch(/^0x/);
  }, 180_000);

  it('after kill -9 of the service, a new start stops what it left running and carries on with the same data', async () => {
    const first = await startServer({ env: env(), cwd: dataDir, timeoutMs: startTimeoutMs });
    const address = '0x00000000000000000000000000000000000b10c5';
    const balance = '0x1bc16d674ec80000';
    expect((await rpc(first.url, first.key, 'anvil_setBalance', [address, balance])).status).toBe(200);
    const anvilPid = readAnvilPid(dataDir)!;
    const databasePid = postgresPid();
    orphans.add(anvilPid).add(databasePid);

    first.cli.child.kill('SIGKILL');
    await first.cli.waitForExit(10_000);
    // Nothing could stop them: both outlive the service.
    expect(alive(anvilPid)).toBe(true);
    expect(alive(databasePid)).toBe(true);

    const second = await startServer({ env: env(), cwd: dataDir, timeoutMs: startTimeoutMs });
    expect(alive(anvilPid)).toBe(false);
    expect(alive(databasePid)).toBe(false);
    expect(postgresPid()).not.toBe(databasePid);
    // Same database (the dev key still works), same chain (anvil wrote its state when it was stopped).
    expect(second.key).toBe(first.key);
    expect((await fetch(`${second.url}/healthz`, { signal: AbortSignal.timeout(10_000) })).status).toBe(200);
    expect((await rpc(second.url, second.key, 'eth_getBalance', [address, 'latest'])).body.result).toBe(balance);
  }, 240_000);

  it('a data directory made by the PGlite version stops the start with what to do', async () => {
    mkdirSync(join(dataDir, 'pglite'), { recursive: true });
    writeFileSync(join(dataDir, 'pglite', 'PG_VERSION'), '17\n');
    const result = await runCli(['start'], { env: env(), cwd: dataDir, timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PGlite');
    expect(result.stderr).toContain(`mv ${join(dataDir, 'pglite')} ${join(dataDir, 'pglite')}.old`);
    expect(result.stderr).toContain('DATABASE_URL');
    // Nothing was started beside the old files.
    expect(readAnvilPid(dataDir)).toBeUndefined();
    expect(() => readFileSync(join(dataDir, 'postgres', 'data', 'PG_VERSION'))).toThrow();
  }, 90_000);
});
