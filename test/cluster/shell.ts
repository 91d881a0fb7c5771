import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

/** Runs a command to its end and returns its stdout; throws with its stderr when it fails. */
export function sh(
  command: string,
  args: readonly string[],
  options: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): string {
  return execFileSync(command, args, {
    encoding: 'utf8',
    input: options.input,
    env: options.env ?? process.env,
    timeout: options.timeoutMs ?? 30_000,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Like `sh`, but a failure is ignored (cleanup of what may not exist). */
export function shQuiet(command: string, args: readonly string[], input?: string): void {
  try {
    sh(command, args, { input, timeoutMs: 15_000 });
  } catch {
    // Already gone, or never made.
  }
}

/** A long-running process inside a namespace, its output appended to `logFile`. */
export interface HostProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly logFile: string;
  readonly exited: Promise<void>;
  alive(): boolean;
}

/** Every process the harness started and has not seen exit: the cleanup kills them. */
const started = new Set<HostProcess>();

/**
 * `ip netns exec NS command args`: `ip` enters the namespace and execs the command, so the child's pid
 * is the program's own (a kill -9 of it is a kill -9 of the program).
 */
export function spawnInNamespace(
  namespace: string,
  command: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; logFile: string; cwd?: string; ipc?: boolean },
): HostProcess {
  const fd = openSync(options.logFile, 'a');
  const child = spawn('ip', ['netns', 'exec', namespace, command, ...args], {
    env: options.env ?? process.env,
    cwd: options.cwd,
    // The IPC channel is an inherited descriptor: it survives `ip netns exec`'s exec.
    stdio: options.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
  });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not spawn ${command} in ${namespace}`);
  let running = true;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      running = false;
      started.delete(handle);
      resolve();
    });
  });
  const handle: HostProcess = { child, pid: child.pid, logFile: options.logFile, exited, alive: () => running };
  started.add(handle);
  return handle;
}

/** SIGKILL, then waits until the process is gone (bounded). */
export async function killHard(processHandle: HostProcess, timeoutMs = 10_000): Promise<void> {
  if (!processHandle.alive()) return;
  processHandle.child.kill('SIGKILL');
  await Promise.race([processHandle.exited, sleep(timeoutMs)]);
}

/** SIGTERM, up to `graceMs`, then SIGKILL. */
export async function stopGently(processHandle: HostProcess, graceMs = 10_000): Promise<void> {
  if (!processHandle.alive()) return;
  processHandle.child.kill('SIGTERM');
  await Promise.race([processHandle.exited, sleep(graceMs)]);
  await killHard(processHandle);
}

/** Kills every process this harness started that is still running (the last resort of the cleanup). */
export async function killAllStarted(): Promise<void> {
  await Promise.all([...started].map((processHandle) => killHard(processHandle)));
}

/** Synchronous last resort for process 'exit': SIGKILL to every started process still running. */
export function killAllStartedNow(): void {
  for (const processHandle of started) {
    try {
      process.kill(processHandle.pid, 'SIGKILL');
    } catch {
      // Gone.
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns a value other than undefined; undefined after `timeoutMs`. */
export async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 200,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() >= deadline) return undefined;
    await sleep(intervalMs);
  }
}
