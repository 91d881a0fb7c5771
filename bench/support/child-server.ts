import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildServer {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, up to `graceMs` to exit, then SIGKILL. Idempotent. */
  stop(): Promise<void>;
}

export interface ChildServerOptions {
  name: string;
  /** A TypeScript file that starts a server and prints `LISTENING <url>` on stdout. */
  script: string;
  env?: Record<string, string | undefined>;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeFlags?: string[];
  startTimeoutMs?: number;
}

const graceMs = 10_000;
const running = new Set<ChildProcess>();
const listeningLine = /^LISTENING (http:\/\/127\.0\.0\.1:\d+)$/;

// A parent that exits in any way (error, SIGINT handler's exit) takes its children with it.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Runs `node --import tsx <script>` and resolves once it prints its URL. The child's stdin is a pipe it
 * watches: when this process dies, the pipe closes and the child shuts down by itself.
 */
export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const { name, script } = options;
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), '--import', 'tsx', script], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: options.env ?? process.env,
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => running.delete(child));

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    })();
    return stopping;
  };

  const url = new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', (line) => {
      const match = listeningLine.exec(line.trim());
      if (match) resolve(match[1]!);
    });
    child.once('error', reject);
    void exited.then(() => reject(new Error(`${name} exited during start (code ${child.exitCode}, signal ${child.signalCode})`)));
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${name} did not print its URL within ${options.startTimeoutMs ?? 30_000} ms`)),
      options.startTimeoutMs ?? 30_000,
    );
  });
  try {
    const resolved = await Promise.race([url, timeout]);
    return { name, url: resolved, pid: child.pid!, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** In a child server script: stops `close` when told to (SIGTERM, SIGINT) or when the parent goes away. */
export function exitWhenTold(close: () => Promise<void>): void {
  let closing = false;
  const exit = () => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(1), graceMs - 1_000);
    force.unref();
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', exit);
  process.on('SIGINT', exit);
  process.stdin.on('end', exit);
  process.stdin.on('error', exit);
  process.stdin.resume();
}
