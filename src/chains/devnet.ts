import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { chooseLoopbackPort } from '../core/loopback-port.ts';
import { resolveAnvilBinary } from './anvil-binary.ts';

export interface DevnetOptions {
  /** Directory for the devnet's files (state.json, anvil.pid). Absent: nothing persisted. */
  dir?: string;
  /** Seconds between blocks; undefined = automine (a block per transaction, used by tests). */
  blockTimeS?: number;
  /** Default 31337 (anvil's own default). */
  chainId?: number;
  logger: Logger;
  /** Spawn to first `eth_chainId` answer. Default 15000; anvil usually answers within 100 ms. */
  startTimeoutMs?: number;
  /**
   * A fixed address to listen on (`blockyard devnet` serves other hosts, e.g. 0.0.0.0:8545) instead of
   * a loopback port chosen here.
   */
  listen?: { host: string; port: number };
  /** More anvil flags, appended after ours (e.g. `--no-mining`, `--timestamp N` for test twins). */
  extraArgs?: string[];
}

export interface DevnetExit {
  code: number | null;
  signal: string | null;
}

export interface Devnet {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** ws://127.0.0.1:PORT (anvil serves both on one port) */
  readonly wsUrl: string;
  readonly pid: number;
  readonly alive: boolean;
  /** Called once if anvil exits without stop() having been called (at once if that already happened). */
  onUnexpectedExit(listener: (info: DevnetExit) => void): void;
  /** SIGTERM (anvil dumps its state), wait up to 5 s, then SIGKILL. Idempotent. */
  stop(): Promise<void>;
}

const defaultChainId = 31337;
const defaultStartTimeoutMs = 15_000;
/** Enough to dump a devnet's state; a wedged anvil is killed after that. */
const stopGraceMs = 5_000;
/** A crash (or SIGKILL of our process) loses at most this much chain history. */
const stateIntervalS = 30;
const outputLinesKept = 20;
const probeTimeoutMs = 1_000;
const probeIntervalMs = 50;
const listeningLine = /Listening on [^\s:]+:(\d+)/;

/**
 * Spawns anvil on a loopback port (with a `dir`, the one it had last time while that is free) and
 * resolves once it answers JSON-RPC.
 *
 * @example
 * const devnet = await startDevnet({ dir: join(dataDir, 'devnet'), blockTimeS: 1, logger });
 * shutdown.add('devnet', () => devnet.stop());
 */
export async function startDevnet(options: DevnetOptions): Promise<Devnet> {
  const { dir } = options;
  if (dir === undefined) return spawnDevnet(options, options.listen?.port ?? 0);
  await mkdir(dir, { recursive: true });
  await stopOrphan(join(dir, 'anvil.pid'), options.logger);
  if (options.listen !== undefined) return spawnDevnet(options, options.listen.port);
  // The port of the last run while it is free: wallets and joined processes keep their URL.
  const portFile = join(dir, 'port');
  const port = await chooseLoopbackPort(portFile);
  try {
    return await spawnDevnet(options, port);
  } catch (error) {
    // Another program took the port between the check and anvil's bind: once more on a new one.
    if (!(error instanceof PortInUseError)) throw error;
    return spawnDevnet(options, await chooseLoopbackPort(portFile, [port]));
  }
}

class PortInUseError extends Error {}

async function spawnDevnet(options: DevnetOptions, requestedPort: number): Promise<Devnet> {
  const { dir, blockTimeS, logger } = options;
  const chainId = options.chainId ?? defaultChainId;
  const deadline = Date.now() + (options.startTimeoutMs ?? defaultStartTimeoutMs);
  const binary = resolveAnvilBinary();

  const pidFile = dir === undefined ? undefined : join(dir, 'anvil.pid');
  const statePath = dir === undefined ? undefined : join(dir, 'state.json');

  const host = options.listen?.host ?? '127.0.0.1';
  const args = ['--port', String(requestedPort), '--host', host, '--chain-id', String(chainId)];
  if (statePath !== undefined) args.push('--state', statePath, '--state-interval', String(stateIntervalS));
  if (blockTimeS !== undefined) args.push('--block-time', String(blockTimeS));
  // anvil keeps the states of its last 500 blocks in memory and writes older ones to disk (up to 3,600,
  // about 0.5 MB each here), by default under ~/.foundry/anvil/tmp, which it never cleans: they go in a
  // folder of ours instead, emptied at start (a crashed run's) and removed once anvil has exited.
  const statesDir = historyStatesDir(dir);
  args.push('--cache-path', statesDir);
  if (options.extraArgs !== undefined) args.push(...options.extraArgs);

  // Own process group: a Ctrl-C in the terminal reaches us, and we stop anvil in order (state dump included).
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, windowsHide: true });
  const tail = createOutputTail(child);

  let exitInfo: DevnetExit | undefined;
  let started = false;
  let stopping: Promise<void> | undefined;
  const listeners: ((info: DevnetExit) => void)[] = [];
  const killOnParentExit = () => {
    child.kill('SIGKILL');
    if (pidFile !== undefined) rmSync(pidFile, { force: true });
    rmSync(statesDir, { recursive: true, force: true });
  };

  const exited = new Promise<DevnetExit>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      process.off('exit', killOnParentExit);
      if (pidFile !== undefined) rmSync(pidFile, { force: true });
      rmSync(statesDir, { recursive: true, force: true });
      resolve(exitInfo);
      if (started && stopping === undefined) {
        logger.error(exitInfo, 'embedded devnet (anvil) exited unexpectedly');
        for (const listener of listeners) listener(exitInfo);
      }
    });
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`could not run ${binary}: ${error.message}`)));
    void exited.then(({ code, signal }) => reject(new Error(`anvil exited during start (code ${code}, signal ${signal})`)));
  });
  failed.catch(() => {});

  let port: number;
  try {
    if (child.pid === undefined) await failed;
    process.on('exit', killOnParentExit);
    // Synchronously, so the exit handler's removal cannot run before the write of an anvil that dies at once.
    if (pidFile !== undefined) writeFileSync(pidFile, `${child.pid}\n`);
    port = await withDeadline(Promise.race([tail.port, failed]), deadline, 'anvil printed no "Listening on" line');
    await waitForRpc(`http://127.0.0.1:${port}`, deadline, failed);
  } catch (error) {
    if (exitInfo === undefined && child.pid !== undefined) {
      child.kill('SIGKILL');
      await withDeadline(exited, Date.now() + stopGraceMs, 'anvil did not exit').catch(() => {});
    }
    process.off('exit', killOnParentExit);
    const output = tail.lines().join('\n');
    if (requestedPort !== 0 && /address already in use|addrinuse/i.test(output)) throw new PortInUseError(output);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`embedded devnet (anvil) did not start: ${reason}\nlast output of anvil:\n${output}`);
  }
  started = true;

  const pid = child.pid!;
  const url = `http://127.0.0.1:${port}`;
  logger.info(
    { url, pid, chainId, blockTimeS: blockTimeS ?? 'automine', state: statePath ?? null },
    'embedded devnet (anvil) started',
  );

  return {
    url,
    wsUrl: `ws://127.0.0.1:${port}`,
    pid,
    get alive() {
      return exitInfo === undefined;
    },
    onUnexpectedExit(listener) {
      if (exitInfo !== undefined && stopping === undefined) queueMicrotask(() => listener(exitInfo!));
      else listeners.push(listener);
    },
    stop() {
      stopping ??= stopChild(child, exited, () => exitInfo !== undefined, logger);
      return stopping;
    },
  };
}

/** The folder for anvil's block states written to disk: in the devnet's `dir`, emptied first, else a new temporary one. */
function historyStatesDir(dir: string | undefined): string {
  if (dir === undefined) return mkdtempSync(join(tmpdir(), 'blockyard-anvil-states-'));
  const statesDir = join(dir, 'anvil-states');
  rmSync(statesDir, { recursive: true, force: true });
  return statesDir;
}

async function stopChild(
  child: ChildProcess,
  exited: Promise<DevnetExit>,
  hasExited: () => boolean,
  logger: Logger,
): Promise<void> {
  if (hasExited()) return;
  child.kill('SIGTERM');
  try {
    await withDeadline(exited, Date.now() + stopGraceMs, 'timeout');
  } catch {
    logger.warn({ pid: child.pid, graceMs: stopGraceMs }, 'embedded devnet (anvil) ignored SIGTERM; killing it');
    child.kill('SIGKILL');
    await exited;
  }
  logger.info({ pid: child.pid }, 'embedded devnet (anvil) stopped');
}

/** Reads anvil's stdout and stderr to the end (a full pipe would block it) and keeps the last lines for errors. */
function createOutputTail(child: ChildProcess): { port: Promise<number>; lines(): string[] } {
  const kept: string[] = [];
  const keep = (line: string) => {
    kept.push(line);
    if (kept.length > outputLinesKept) kept.shift();
  };
  const port = new Promise<number>((resolve) => {
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
      keep(line);
      const match = listeningLine.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', keep);
  return { port, lines: () => [...kept] };
}

async function waitForRpc(url: string, deadline: number, failed: Promise<never>): Promise<void> {
  for (;;) {
    if (await Promise.race([answersChainId(url, deadline), failed])) return;
    if (Date.now() + probeIntervalMs >= deadline) throw new Error(`${url} did not answer eth_chainId in time`);
    await Promise.race([sleep(probeIntervalMs), failed]);
  }
}

async function answersChainId(url: string, deadline: number): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(Math.max(1, Math.min(probeTimeoutMs, deadline - Date.now()))),
    });
    const body = (await response.json()) as { result?: unknown };
    return typeof body.result === 'string';
  } catch {
    return false;
  }
}

/**
 * A crashed run (or a SIGKILLed parent) can leave anvil running and holding the state file. Only on
 * Linux, where /proc tells us the pid still belongs to an anvil and not to a process that reused it.
 */
async function stopOrphan(pidFile: string, logger: Logger): Promise<void> {
  if (process.platform !== 'linux') return;
  const pid = Number.parseInt(await readFile(pidFile, 'utf8').catch(() => ''), 10);
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !(await isAnvil(pid))) return;
  logger.warn({ pid }, 'stopping an embedded devnet (anvil) left running by an earlier run');
  signal(pid, 'SIGTERM');
  if (await waitUntilGone(pid, Date.now() + stopGraceMs)) return;
  signal(pid, 'SIGKILL');
  if (!(await waitUntilGone(pid, Date.now() + stopGraceMs))) {
    throw new Error(`An earlier embedded devnet (anvil, pid ${pid}) is still running and could not be killed`);
  }
}

async function isAnvil(pid: number): Promise<boolean> {
  // A zombie's cmdline is empty, so an exited but unreaped anvil counts as gone.
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return cmdline.includes('anvil');
}

async function waitUntilGone(pid: number, deadline: number): Promise<boolean> {
  while (await isAnvil(pid)) {
    if (Date.now() >= deadline) return false;
    await sleep(probeIntervalMs);
  }
  return true;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function withDeadline<T>(promise: Promise<T>, deadline: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
