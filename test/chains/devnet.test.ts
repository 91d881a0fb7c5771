import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { createPublicClient, http } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveAnvilBinary } from '../../src/chains/anvil-binary.ts';
import { type Devnet, type DevnetExit, startDevnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';

const address = '0x00000000000000000000000000000000000b10c5';
const started: Devnet[] = [];
const dirs: string[] = [];
const strays: ChildProcess[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((devnet) => devnet.stop()));
  for (const child of strays.splice(0)) child.kill('SIGKILL');
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function track(devnet: Promise<Devnet>): Promise<Devnet> {
  const running = await devnet;
  started.push(running);
  return running;
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'blockyard-devnet-'));
  dirs.push(dir);
  return dir;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

describe('startDevnet', () => {
  it('starts on a loopback port and answers eth_chainId 31337', async () => {
    const devnet = await track(startTestAnvil());
    expect(devnet.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(devnet.wsUrl).toBe(devnet.url.replace('http://', 'ws://'));
    expect(devnet.alive).toBe(true);
    const client = createPublicClient({ transport: http(devnet.url) });
    expect(await client.getChainId()).toBe(31337);
  });

  it('uses the chain id it is given', async () => {
    const devnet = await track(startDevnet({ chainId: 1337, logger: pino({ level: 'silent' }) }));
    expect(await createPublicClient({ transport: http(devnet.url) }).getChainId()).toBe(1337);
  });

  it('produces blocks on its own with a block time', async () => {
    const devnet = await track(startTestAnvil({ blockTimeS: 1 }));
    const client = createPublicClient({ transport: http(devnet.url) });
    const first = await client.getBlockNumber({ cacheTime: 0 });
    await eventually(async () => (await client.getBlockNumber({ cacheTime: 0 })) >= first + 2n, 5_000);
  });

  it('keeps its state across stop and start with the same dir', async () => {
    const dir = await tempDir();
    const first = await startTestAnvil({ dir });
    expect(existsSync(join(dir, 'anvil.pid'))).toBe(true);
    await createPublicClient({ transport: http(first.url) }).request({
      method: 'anvil_setBalance' as never,
      params: [address, '0x1234567890'] as never,
    });
    await first.stop();
    expect(existsSync(join(dir, 'state.json'))).toBe(true);
    expect(existsSync(join(dir, 'anvil.pid'))).toBe(false);

    const second = await track(startTestAnvil({ dir }));
    expect(await createPublicClient({ transport: http(second.url) }).getBalance({ address })).toBe(0x1234567890n);
  });

  it('writes the block states anvil moves to disk in its own folder, not ~/.foundry, and removes them at stop and at start', async () => {
    const dir = await tempDir();
    const statesDir = join(dir, 'anvil-states');
    await mkdir(join(statesDir, 'anvil-state-of-a-crashed-run'), { recursive: true });
    const devnet = await startTestAnvil({ dir });
    expect(existsSync(join(statesDir, 'anvil-state-of-a-crashed-run'))).toBe(false);
    // Past the 500 block states anvil keeps in memory: the older ones go to disk.
    await createPublicClient({ transport: http(devnet.url) }).request({
      method: 'anvil_mine' as never,
      params: ['0x258'] as never,
    });
    await eventually(() => existsSync(statesDir) && readdirSync(statesDir).length > 0, 5_000);
    await devnet.stop();
    expect(existsSync(statesDir)).toBe(false);
  });

  it('stop() ends the process and is idempotent', async () => {
    const devnet = await startTestAnvil();
    let unexpected = false;
    devnet.onUnexpectedExit(() => {
      unexpected = true;
    });
    await Promise.all([devnet.stop(), devnet.stop()]);
    expect(devnet.alive).toBe(false);
    expect(isRunning(devnet.pid)).toBe(false);
    await devnet.stop();
    expect(unexpected).toBe(false);
  });

  it('reports an anvil killed from outside', async () => {
    const { logger, lines } = capturingLogger();
    const devnet = await track(startDevnet({ logger }));
    const exit = new Promise<DevnetExit>((resolve) => devnet.onUnexpectedExit(resolve));
    process.kill(devnet.pid, 'SIGKILL');
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no exit reported')), 5_000).unref());
    expect(await Promise.race([exit, timeout])).toEqual({ code: null, signal: 'SIGKILL' });
    expect(devnet.alive).toBe(false);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, msg: 'embedded devnet (anvil) exited unexpectedly', signal: 'SIGKILL' }),
    );
  });

  it('stops an orphaned anvil named in the pid file before starting', async () => {
    const dir = await tempDir();
    const orphan = spawn(resolveAnvilBinary(), ['--port', '0', '--host', '127.0.0.1'], { stdio: 'ignore' });
    strays.push(orphan);
    const orphanPid = orphan.pid!;
    await writeFile(join(dir, 'anvil.pid'), `${orphanPid}\n`);
    await eventually(() => isRunning(orphanPid), 2_000);

    const devnet = await track(startTestAnvil({ dir }));
    expect(devnet.pid).not.toBe(orphanPid);
    await eventually(() => !isRunning(orphanPid), 2_000);
    expect(await createPublicClient({ transport: http(devnet.url) }).getChainId()).toBe(31337);
  });

  it('leaves alone a process in the pid file that is not anvil', async () => {
    const dir = await tempDir();
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    strays.push(other);
    await writeFile(join(dir, 'anvil.pid'), `${other.pid}\n`);

    await track(startTestAnvil({ dir }));
    expect(isRunning(other.pid!)).toBe(true);
  });

  it('fails with the last lines of anvil output when anvil cannot start', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'state.json'), 'not json');
    const start = startTestAnvil({ dir });
    await expect(start).rejects.toThrow(/did not start: anvil exited during start[\s\S]*failed to parse json file/);
    expect(existsSync(join(dir, 'anvil.pid'))).toBe(false);
  });

  it('fails within its start timeout', async () => {
    const startedAt = Date.now();
    await expect(startDevnet({ logger: pino({ level: 'silent' }), startTimeoutMs: 1 })).rejects.toThrow(/did not start/);
    expect(Date.now() - startedAt).toBeLessThan(3_000);
  });
});
