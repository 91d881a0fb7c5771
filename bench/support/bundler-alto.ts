// Pimlico Alto (the devDependency @pimlico/alto) as a peer for bench/bundler.ts: its own process,
// against the same anvil as Blockyard's embedded devnet, with anvil accounts of its own as executor and
// utility (never Blockyard's executors). Its output goes to a log file; it is ready once it answers
// JSON-RPC (it first deploys its simulation contracts through the CREATE2 deployer, about 5 s: v0.7's,
// v0.8's and v0.9's EntryPointSimulations and PimlicoSimulations, salted with its utility address).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hex } from 'viem';

export interface AltoProcess {
  /** Its JSON-RPC endpoint (POST). */
  rpcUrl: string;
  pid: number;
  logFile: string;
  /** The `alto` version its package.json names. */
  version: string;
  stop(): Promise<void>;
}

export interface AltoOptions {
  /** The anvil both bundlers use. */
  anvilUrl: string;
  /** The EntryPoints it serves (v0.7 and v0.8 here), passed comma-separated to --entrypoints. */
  entryPoints: readonly Hex[];
  executorKey: Hex;
  utilityKey: Hex;
  logFile: string;
  /** The chain's block time, which Alto uses to pace its receipt checks. */
  blockTimeMs: number;
  startTimeoutMs?: number;
}

const stopGraceMs = 10_000;
const running = new Set<ChildProcess>();

process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A free loopback port (bound, read and released). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** Where the alto command lives in node_modules, and its version. */
function altoPackage(): { cli: string; version: string } {
  // The package's exports hide its package.json: it is read from node_modules.
  const manifest = fileURLToPath(new URL('../../node_modules/@pimlico/alto/package.json', import.meta.url));
  const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; bin: { alto: string } };
  return { cli: join(dirname(manifest), parsed.bin.alto), version: parsed.version };
}

export async function startAlto(options: AltoOptions): Promise<AltoProcess> {
  const { cli, version } = altoPackage();
  const port = await freePort();
  const args = [
    cli,
    '--entrypoints',
    options.entryPoints.join(','),
    '--executor-private-keys',
    options.executorKey,
    '--utility-private-key',
    options.utilityKey,
    '--rpc-url',
    options.anvilUrl,
    '--port',
    String(port),
    '--block-time',
    String(options.blockTimeMs),
    // The full ERC-7562 rules need debug_traceCall with its JS tracer, which anvil lacks.
    '--safe-mode',
    'false',
    '--json',
    '--log-level',
    'info',
  ];
  const logFd = openSync(options.logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, { stdio: ['ignore', logFd, logFd] });
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

  const rpcUrl = `http://127.0.0.1:${port}/rpc`;
  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`alto exited during start:\n${logTail(options.logFile)}`);
      if (await answers(rpcUrl)) break;
      if (Date.now() > deadline)
        throw new Error(`alto did not answer within ${timeoutMs / 1000} s:\n${logTail(options.logFile)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { rpcUrl, pid: child.pid!, logFile: options.logFile, version, stop };
}

async function answers(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }),
      signal: AbortSignal.timeout(2_000),
    });
    const body = (await response.json()) as { result?: unknown };
    return Array.isArray(body.result) && body.result.length > 0;
  } catch {
    return false;
  }
}

function logTail(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}
