import { createServer } from 'node:net';

/** A loopback port nothing listens on now (bound by the OS, then released): to hand to a server, or to find refused. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
