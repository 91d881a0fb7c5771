import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Whether `port` can be bound on 127.0.0.1 now (0: any free port, which is returned). */
function bind(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * The loopback port for an embedded server (Postgres, the devnet): the one it used last time (kept in
 * `file`) while it is free, so the URL other processes and wallets were given keeps working across
 * restarts; else a free one, remembered for next time.
 */
export async function chooseLoopbackPort(file: string, avoid: readonly number[] = []): Promise<number> {
  const previous = Number.parseInt(readText(file) ?? '', 10);
  if (Number.isInteger(previous) && previous > 0 && !avoid.includes(previous) && (await bind(previous)) === previous) {
    return previous;
  }
  for (;;) {
    const port = await bind(0);
    if (port === undefined) throw new Error('no free loopback port');
    if (avoid.includes(port)) continue;
    writeFileSync(file, `${port}\n`);
    return port;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
