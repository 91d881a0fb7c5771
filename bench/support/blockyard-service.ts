// Starts Blockyard for a benchmark exactly as `npm start` does: `node bin/blockyard.js start` on the
// compiled build, default settings (log level info, the embedded Postgres, all roles), its output going
// to a log file. Only the data directory (a temp one), the port (any free one) and, when a benchmark
// needs its own chain, a YAML file with `chains:` are given.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import type { ChildServer } from './child-server.ts';

export interface BlockyardService {
  server: ChildServer;
  /** The generated admin token, read from the data directory. */
  adminToken: string;
  /** The embedded devnet's URL (when the service runs it, as `npm start` does). */
  devnetUrl?: string;
  /** Where the service's stdout and stderr go. */
  logFile: string;
  /** Where node --cpu-prof writes, when profiling. */
  profileDir?: string;
}

export interface BlockyardServiceOptions {
  /** A directory the caller removes afterwards; the data directory and the log go inside it. */
  workDir: string;
  /** A chain of the benchmark's own instead of the embedded devnet (written as the YAML file's `chains:`). */
  upstream?: { url: string; ws_url?: string };
  /** More fields of that chain entry, e.g. `indexer`, `finality_depth`, `block_time_s`. */
  chainSettings?: Record<string, unknown>;
  cpuProfile?: boolean;
  /** A Postgres server instead of the embedded one (BENCH_DATABASE_URL). */
  databaseUrl?: string;
}

const root = fileURLToPath(new URL('../../', import.meta.url));
const startTimeoutMs = 90_000;
const stopGraceMs = 20_000;
const running = new Set<ChildProcess>();

// A benchmark that dies asks its services to stop: they stop their devnet and database themselves.
process.on('exit', () => {
  for (const child of running) child.kill('SIGTERM');
});

let built = false;

/** The build `npm start` runs, made again first so a benchmark never measures code older than src/. */
function buildOnce(): void {
  if (built) return;
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')],
    {
      stdio: 'inherit',
      timeout: 300_000,
    },
  );
  // What `npm run build` does after tsc.
  execFileSync(process.execPath, [join(root, 'scripts', 'copy-generated.mjs')], { stdio: 'inherit', timeout: 60_000 });
  built = true;
}

export async function startBlockyardService(options: BlockyardServiceOptions): Promise<BlockyardService> {
  buildOnce();
  const dataDir = join(options.workDir, 'blockyard');
  mkdirSync(dataDir, { recursive: true });
  // A temp work directory is private; as root the embedded Postgres runs as another user and must enter it.
  chmodSync(options.workDir, 0o711);
  if (options.upstream) {
    const chain = { chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, upstreams: [options.upstream] };
    writeFileSync(join(dataDir, 'blockyard.yaml'), stringify({ chains: [{ ...chain, ...options.chainSettings }] }));
  }
  const profileDir = options.cpuProfile ? mkdtempSync(join(tmpdir(), 'blockyard-bench-profile-')) : undefined;
  const logFile = join(options.workDir, 'blockyard.log');
  const logFd = openSync(logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(
      process.execPath,
      [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), join(root, 'bin', 'blockyard.js'), 'start'],
      { cwd: dataDir, env: serviceEnv(dataDir, options.databaseUrl), stdio: ['ignore', logFd, logFd] },
    );
  } finally {
    closeSync(logFd);
  }
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
      await exited;
      clearTimeout(timer);
    })();
    return stopping;
  };

  try {
    const banner = await waitForBanner(logFile, () => child.exitCode !== null || child.signalCode !== null);
    const server: ChildServer = { name: 'blockyard', url: banner.url, pid: child.pid!, stop };
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    return { server, adminToken, devnetUrl: banner.devnetUrl, logFile, ...(profileDir ? { profileDir } : {}) };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The caller's environment without any Blockyard setting (so none leaks into the measured service). */
function serviceEnv(dataDir: string, databaseUrl: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('BLOCKYARD_') || ['PORT', 'DATABASE_URL', 'REDIS_URL', 'LOG_LEVEL'].includes(name)) continue;
    env[name] = value;
  }
  return { ...env, BLOCKYARD_DATA_DIR: dataDir, PORT: '0', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) };
}

/** Polls the log for the banner `npm start` prints once the service is ready. */
async function waitForBanner(logFile: string, hasExited: () => boolean): Promise<{ url: string; devnetUrl?: string }> {
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    const text = readFileSync(logFile, 'utf8');
    const url = /Blockyard is running at (http:\/\/[^\s]+)/.exec(text)?.[1];
    if (url) return { url, devnetUrl: /embedded devnet at (http:\/\/[^\s]+)/.exec(text)?.[1] };
    if (hasExited()) throw new Error(`blockyard exited during start; its log ends:\n${text.split('\n').slice(-20).join('\n')}`);
    if (Date.now() > deadline) throw new Error(`blockyard printed no banner within ${startTimeoutMs} ms (log: ${logFile})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Which database the service runs on, for the printed settings line. */
export function databaseLabel(databaseUrl: string | undefined): string {
  if (!databaseUrl) return 'embedded Postgres';
  try {
    const url = new URL(databaseUrl);
    return `Postgres at ${url.hostname}:${url.port || '5432'}`;
  } catch {
    return 'Postgres (BENCH_DATABASE_URL)';
  }
}
