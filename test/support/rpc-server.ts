import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcCallSeen {
  method: string;
  body: string;
}

export interface RpcServerAnswer {
  status?: number;
  body: string;
}

export interface TestRpcServer {
  readonly url: string;
  /** Every request received, in order. */
  readonly seen: RpcCallSeen[];
  /** How many requests called `method`. */
  count(method: string): number;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that answers like a JSON-RPC node: `answer` decides each reply
 * (a misbehaving node), or forwards it (a counting proxy in front of an anvil, see `forwardTo`).
 */
export async function startRpcServer(answer: (body: string, method: string) => Promise<RpcServerAnswer>): Promise<TestRpcServer> {
  const seen: RpcCallSeen[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const method = /"method"\s*:\s*"([^"]*)"/.exec(body)?.[1] ?? '';
      seen.push({ method, body });
      answer(body, method).then(
        ({ status = 200, body: text }) => response.writeHead(status, { 'content-type': 'application/json' }).end(text),
        () => response.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    count: (method) => seen.filter((call) => call.method === method).length,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An answer function that forwards the body to `url` and returns its answer byte for byte. */
export function forwardTo(url: string): (body: string) => Promise<RpcServerAnswer> {
  return async (body) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    return { status: response.status, body: await response.text() };
  };
}

/** A JSON-RPC answer with the request's id. */
export function rpcAnswer(body: string, member: { result: unknown } | { error: { code: number; message: string } }): string {
  const id = (JSON.parse(body) as { id?: unknown }).id ?? null;
  return JSON.stringify({ jsonrpc: '2.0', id, ...member });
}
