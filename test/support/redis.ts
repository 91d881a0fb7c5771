import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

/**
 * A real redis-server on a free 127.0.0.1 port, for tests. Every wait is bounded.
 * @example const redis = await startRedis(); ...; await redis.stop();
 */
export interface RunningRedis {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

const startTimeoutMs = 10_000;
const stopTimeoutMs = 5_000;
const attempts = 3;

/** On a free port, or on `port` (a server started again where the last one was: outage tests). */
export async function startRedis(options: { port?: number } = {}): Promise<RunningRedis> {
  let lastError: unknown;
  for (let attempt = 0; attempt < (options.port ? 1 : attempts); attempt++) {
    const port = options.port ?? (await freePort());
    try {
      return await startOn(port);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error(
          'redis-server is not installed: run `apt-get install redis-server` (the Redis tests need a real server)',
          {
            cause: error,
          },
        );
      }
      lastError = error; // most likely the port was taken between freePort() and spawn: try another
    }
  }
  throw new Error(`redis-server did not start after ${attempts} attempts`, { cause: lastError });
}

async function startOn(port: number): Promise<RunningRedis> {
  const child = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  });
  // If the test process dies without stop(), do not leave a server behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const exited = new Promise<never>((_, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`redis-server exited (${code ?? signal}) while starting:\n${output}`)));
  });
  exited.catch(() => {});

  try {
    await Promise.race([waitForPong(port, startTimeoutMs), exited]);
  } catch (error) {
    process.removeListener('exit', killOnExit);
    await stopChild(child);
    throw error;
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    async stop() {
      process.removeListener('exit', killOnExit);
      await stopChild(child);
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/** PINGs over a raw socket until +PONG, retrying every 50 ms until `timeoutMs`. */
async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await pingOnce(port, Math.min(1000, deadline - Date.now()))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server on 127.0.0.1:${port} did not answer PING within ${timeoutMs} ms`);
}

function pingOnce(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.once('error', () => done(false));
  });
}

/** SIGTERM, then SIGKILL if it has not exited within the stop timeout; never waits unbounded. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const killTimer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
  let giveUpTimer: NodeJS.Timeout | undefined;
  const giveUp = new Promise<void>((resolve) => {
    giveUpTimer = setTimeout(resolve, stopTimeoutMs + 2_000);
  });
  await Promise.race([exited, giveUp]);
  clearTimeout(killTimer);
  clearTimeout(giveUpTimer);
}
