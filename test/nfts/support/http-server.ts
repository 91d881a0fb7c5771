import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestHttpServer {
  /** `http://127.0.0.1:port` */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 serving `handler`; open sockets are destroyed on close. */
export async function startHttpServer(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<TestHttpServer> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
