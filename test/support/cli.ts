import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The CLI's sources, run through tsx: what `bin/blockyard.js` runs from the build, without a build that
 * could be older than the code under test (test/cli/build.test.ts checks the build itself).
 */
export const cliEntry = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
/** tsx's loader by URL: the spawned CLI's working directory (a temp data dir) cannot resolve the bare name. */
const tsxLoader = import.meta.resolve('tsx');

export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything written to stdout / stderr so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout; rejects when the process exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited; rejects after `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<CliExit>;
  readonly exitInfo: CliExit | undefined;
  /** SIGTERM, wait up to `graceMs`, then SIGKILL. Resolves once the process is gone. */
  stop(graceMs?: number): Promise<CliExit>;
}

const running = new Set<CliProcess>();

/**
 * The environment a spawned CLI gets: this process's, without any setting Blockyard reads (so the
 * developer's or CI's own settings cannot leak in), plus `extra`.
 */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('BLOCKYARD_') || ['PORT', 'DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL'].includes(name)) continue;
    env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** Spawns `blockyard ...args` (from the sources), capturing its output. Stop it with `stop()` or `stopAllCli()`. */
export function spawnCli(args: string[], options: { env: NodeJS.ProcessEnv; cwd: string }): CliProcess {
  const child = spawn(process.execPath, ['--import', tsxLoader, cliEntry, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not spawn the blockyard CLI');
  let out = '';
  let err = '';
  const outputListeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const listener of outputListeners) listener();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  let exitInfo: CliExit | undefined;
  const exited = new Promise<CliExit>((resolve) => {
    // 'close': the process has exited and its output has been read to the end.
    child.once('close', (code, signal) => {
      exitInfo = { code, signal };
      for (const listener of outputListeners) listener();
      resolve(exitInfo);
    });
  });

  const describeOutput = () => `\n--- stdout ---\n${out.slice(-4000)}\n--- stderr ---\n${err.slice(-4000)}`;

  const handle: CliProcess = {
    child,
    pid: child.pid,
    stdout: () => out,
    stderr: () => err,
    get exitInfo() {
      return exitInfo;
    },
    waitForOutput(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(out);
          if (match) {
            done();
            resolve(match);
          } else if (exitInfo) {
            done();
            reject(new Error(`blockyard exited (${JSON.stringify(exitInfo)}) before printing ${pattern}${describeOutput()}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`blockyard did not print ${pattern} within ${timeoutMs} ms${describeOutput()}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          outputListeners.delete(check);
        };
        outputListeners.add(check);
        check();
      });
    },
    waitForExit(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`blockyard did not exit within ${timeoutMs} ms${describeOutput()}`)),
          timeoutMs,
        );
      });
      return Promise.race([exited, timeout]).finally(() => clearTimeout(timer));
    },
    async stop(graceMs = 15_000) {
      if (!exitInfo) {
        child.kill('SIGTERM');
        try {
          await handle.waitForExit(graceMs);
        } catch {
          child.kill('SIGKILL');
          await handle.waitForExit(10_000).catch(() => undefined);
        }
      }
      running.delete(handle);
      return exitInfo ?? { code: null, signal: null };
    },
  };
  running.add(handle);
  void exited.then(() => running.delete(handle));
  return handle;
}

/** Runs a CLI command to its end (killed after `timeoutMs`) and returns its exit and output. */
export async function runCli(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number },
): Promise<CliExit & { stdout: string; stderr: string; durationMs: number }> {
  const started = Date.now();
  const cli = spawnCli(args, options);
  const timeoutMs = options.timeoutMs ?? 60_000;
  try {
    const exit = await cli.waitForExit(timeoutMs);
    return { ...exit, stdout: cli.stdout(), stderr: cli.stderr(), durationMs: Date.now() - started };
  } finally {
    await cli.stop(1_000);
  }
}

/** Stops every CLI process this test file started and has not seen exit (afterAll / afterEach). */
export async function stopAllCli(): Promise<void> {
  await Promise.all([...running].map((cli) => cli.stop()));
}

export interface StartedServer {
  readonly cli: CliProcess;
  /** `http://127.0.0.1:PORT` from the banner. */
  readonly url: string;
  /** The development key from the banner. */
  readonly key: string;
}

/** `blockyard start` (plus `args`), resolved once the banner with the URL and the dev key is printed. */
export async function startServer(options: {
  env: NodeJS.ProcessEnv;
  cwd: string;
  args?: string[];
  timeoutMs?: number;
}): Promise<StartedServer> {
  const cli = spawnCli(['start', ...(options.args ?? [])], options);
  const timeoutMs = options.timeoutMs ?? 90_000;
  try {
    const [, key] = (await cli.waitForOutput(/Test API key:\s+(svc_test_\S+)/, timeoutMs)) as [string, string];
    const [, url] = (await cli.waitForOutput(/Blockyard is running at (http:\/\/127\.0\.0\.1:\d+)/, 1_000)) as [string, string];
    return { cli, url, key };
  } catch (error) {
    await cli.stop(5_000);
    throw error;
  }
}

/** The embedded devnet's anvil pid from `<dataDir>/devnet/anvil.pid`, if the file is there. */
export function readAnvilPid(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, 'devnet', 'anvil.pid'), 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** True while `pid` is a running anvil (a zombie, or a reused pid of another program, is not). */
export function isAnvilRunning(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('anvil');
  } catch {
    return false;
  }
}

/** SIGKILLs each of `pids` that is still an anvil: cleanup for a test that failed half way. */
export function killAnvils(pids: Iterable<number>): void {
  for (const pid of pids) {
    if (!isAnvilRunning(pid)) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** Polls `check` every `intervalMs` until it returns a value other than undefined; throws after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 200, what }: { timeoutMs: number; intervalMs?: number; what: string },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
