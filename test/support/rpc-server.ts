import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One HTTP request received. */
export interface RpcCallSeen {
  /** The method of its (first) call. */
  method: string;
  /** Every call's method: one for a single call, each element's for a batch. */
  methods: string[];
  body: string;
  /** Its headers (a `traceparent` the service passed on, for one). */
  headers: IncomingHttpHeaders;
}

export interface RpcServerAnswer {
  status?: number;
  body: string;
}

export interface TestRpcServer {
  readonly url: string;
  /** Every request received, in order. */
  readonly seen: RpcCallSeen[];
  /** How many calls of `method` arrived, alone or inside batches. */
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
      const methods = methodsOf(body);
      const method = methods[0] ?? '';
      seen.push({ method, methods, body, headers: request.headers });
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
    count: (method) => seen.reduce((sum, request) => sum + request.methods.filter((m) => m === method).length, 0),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Every call's method in a request body, a single call's or a batch's, in order (read, not parsed). */
export function methodsOf(body: string): string[] {
  return [...body.matchAll(/"method"\s*:\s*"([^"]*)"/g)].map((match) => match[1] ?? '');
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

/** A JSON-RPC answer with the request's id; for a batch, one such answer per call, as nodes do. */
export function rpcAnswer(body: string, member: { result: unknown } | { error: { code: number; message: string } }): string {
  const parsed = JSON.parse(body) as { id?: unknown } | { id?: unknown }[];
  const answer = (call: { id?: unknown }) => ({ jsonrpc: '2.0', id: call.id ?? null, ...member });
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed));
}

/**
 * Wraps a misbehaving node's `answer` so that it still answers the identity check (`eth_chainId`) like
 * the chain `chainId`: Blockyard sends nothing else to a node until it passed that check.
 */
export function answeringChainId(
  chainId: number,
  answer: (body: string, method: string) => Promise<RpcServerAnswer>,
): (body: string, method: string) => Promise<RpcServerAnswer> {
  return (body, method) =>
    method === 'eth_chainId' && !body.trimStart().startsWith('[')
      ? Promise.resolve({ body: rpcAnswer(body, { result: `0x${chainId.toString(16)}` }) })
      : answer(body, method);
}
