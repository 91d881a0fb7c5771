import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastRoute } from '../../src/http/fast-route.ts';
import { buildServer } from '../../src/http/server.ts';
import { createMetrics } from '../../src/observability/metrics.ts';

/** POST /echo/{digits} on the fast path (it reads the body itself); any other /echo/{n} goes to Fastify. */
const echoRoute: FastRoute = {
  method: 'POST',
  url: '/echo/:n',
  match: (url) => /^\/echo\/(\d+)$/.exec(url)?.slice(1),
  async handle(exchange) {
    return JSON.stringify({ via: 'fast', body: await exchange.readBody(1024) });
  },
};

// Short limits, so each case takes about a second: the same code enforces the defaults (10 s, 30 s, 72 s).
const timeouts = { headersMs: 800, requestMs: 1_200, keepAliveMs: 1_000, checkIntervalMs: 200 };
/** The most a limit may be late: Node checks every checkIntervalMs; the rest is a loaded machine's slack. */
const lateness = timeouts.checkIntervalMs + 1_000;

interface RawExchange {
  /** Everything the server sent. */
  text: string;
  /** Milliseconds from the connection to the server closing it. */
  closedAfterMs: number;
}

/** Opens a raw connection, writes `chunks`, then reads until the server closes it (at most `limitMs`). */
function rawConnection(port: number, chunks: string[], limitMs: number): Promise<RawExchange> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const opened = Date.now();
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${limitMs} ms; it sent: ${JSON.stringify(text)}`));
    }, limitMs);
    socket.setEncoding('latin1');
    socket.on('connect', () => {
      for (const chunk of chunks) socket.write(chunk);
    });
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - opened });
    });
  });
}

/** Status, lower-case headers and body of the one response in `text`. */
function parseResponse(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function expectErrorResponse(text: string, status: number, code: string) {
  const response = parseResponse(text);
  expect(response.status).toBe(status);
  expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.headers.connection).toBe('close');
  expect(JSON.parse(response.body)).toEqual({ error: { code, message: expect.any(String), status } });
}

describe('slow and broken clients', () => {
  let app: FastifyInstance;
  let port: number;
  const metrics = createMetrics({ defaultMetrics: false });
  beforeAll(async () => {
    app = await buildServer({
      logger: pino({ level: 'silent' }),
      metrics,
      timeouts,
      fastRoutes: [echoRoute],
      plugins: [
        async (scope) => {
          scope.post('/echo/:n', async (request) => ({ via: 'fastify', body: request.body }));
        },
      ],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterAll(() => app?.close());

  const stalledBody = (path: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":"1234`;

  it.each(['/echo/1', '/echo/one'])(
    'a body that stops (POST %s, Content-Length 100, 10 bytes sent): 408 and the connection closed, others served meanwhile',
    async (path) => {
      const stalled = rawConnection(port, [stalledBody(path)], timeouts.requestMs + lateness + 2_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const other = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"b":2}',
        signal: AbortSignal.timeout(5_000),
      });
      expect(other.status).toBe(200);
      const { text, closedAfterMs } = await stalled;
      expect(closedAfterMs).toBeGreaterThanOrEqual(timeouts.requestMs - 50);
      expect(closedAfterMs).toBeLessThan(timeouts.requestMs + lateness);
      expectErrorResponse(text, 408, 'request_timeout');
    },
  );

  it('a body sent a byte at a time, each within the idle limits, is still cut off at the request limit', async () => {
    const socket = connect(port, '127.0.0.1');
    const opened = Date.now();
    let text = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', () => {});
    socket.write('POST /echo/2 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('x'), 100);
    try {
      await new Promise<void>((resolve, reject) => {
        const limit = setTimeout(
          () => reject(new Error('a trickling body kept its connection')),
          timeouts.requestMs + lateness + 2_000,
        );
        socket.on('close', () => {
          clearTimeout(limit);
          resolve();
        });
      });
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
    expect(Date.now() - opened).toBeLessThan(timeouts.requestMs + lateness);
    expectErrorResponse(text, 408, 'request_timeout');
  });

  it('a connection that sends nothing, or half its headers, is closed at the header limit', async () => {
    const [silent, halfHeaders] = await Promise.all([
      rawConnection(port, [], timeouts.headersMs + lateness + 2_000),
      rawConnection(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n'], timeouts.headersMs + lateness + 2_000),
    ]);
    for (const connection of [silent, halfHeaders]) {
      expect(connection.closedAfterMs).toBeLessThan(timeouts.headersMs + lateness);
    }
    expectErrorResponse(halfHeaders.text, 408, 'request_timeout');
  });

  it('an idle keep-alive connection is closed at the keep-alive limit', async () => {
    const { text, closedAfterMs } = await rawConnection(
      port,
      ['POST /echo/3 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'],
      timeouts.keepAliveMs + lateness + 2_000,
    );
    expect(parseResponse(text).status).toBe(200);
    expect(closedAfterMs).toBeGreaterThanOrEqual(timeouts.keepAliveMs - 50);
    expect(closedAfterMs).toBeLessThan(timeouts.keepAliveMs + lateness);
  });

  it('headers over 16 KiB: 431 in the error format; a request that is not HTTP: 400 in the error format', async () => {
    const large = await rawConnection(port, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`], 5_000);
    expectErrorResponse(large.text, 431, 'headers_too_large');
    const garbage = await rawConnection(port, ['HELLO THERE\r\n\r\n'], 5_000);
    expectErrorResponse(garbage.text, 400, 'invalid_request');
  });
});
