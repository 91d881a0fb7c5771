import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer } from '../../src/http/close-server.ts';
import type { FastRoute } from '../../src/http/fast-route.ts';
import { buildServer } from '../../src/http/server.ts';
import { createMetrics } from '../../src/observability/metrics.ts';

/** POST /slow/{ms}: reads the body, then answers after `ms`. */
const slowRoute: FastRoute = {
  method: 'POST',
  url: '/slow/:ms',
  match: (url) => /^\/slow\/(\d+)$/.exec(url)?.slice(1),
  async handle(exchange) {
    const body = await exchange.readBody(1024);
    await new Promise((resolve) => setTimeout(resolve, Number(exchange.params[0])));
    return JSON.stringify({ body });
  },
};

/** A connection that sends a request with Content-Length 100 and 10 bytes, then nothing. */
function stallBody(port: number, path: string): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":"1234`);
      resolve({ socket, closed });
    });
    socket.on('error', () => {});
    // Read to the end: a socket that is not read never sees the server's FIN.
    socket.resume();
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
  });
}

describe('closeServer: requests in flight get the grace period, then connections are closed', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    app?.server.closeAllConnections();
    await app?.close();
    app = undefined;
  });

  async function start(): Promise<number> {
    app = await buildServer({
      logger: pino({ level: 'silent' }),
      metrics: createMetrics({ defaultMetrics: false }),
      fastRoutes: [slowRoute],
      plugins: [
        async (scope) => {
          scope.post('/fastify', async (request) => ({ body: request.body }));
        },
      ],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    return (app.server.address() as { port: number }).port;
  }

  it('with stalled bodies (fast path and Fastify route) it ends at the grace period, not at the request timeout', async () => {
    const port = await start();
    const stalled = [await stallBody(port, '/slow/0'), await stallBody(port, '/fastify')];
    const graceMs = 500;
    const started = Date.now();
    await closeServer(app!, graceMs, pino({ level: 'silent' }));
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(graceMs - 50);
    expect(took).toBeLessThan(graceMs + 1_500);
    await Promise.race([
      Promise.all(stalled.map(({ closed }) => closed)),
      new Promise((_, reject) => setTimeout(() => reject(new Error('a stalled connection is still open')), 1_000)),
    ]);
  });

  it('a request in flight within the grace period is answered, and the close does not wait for the whole grace period', async () => {
    const port = await start();
    const inFlight = fetch(`http://127.0.0.1:${port}/slow/300`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
      signal: AbortSignal.timeout(5_000),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await closeServer(app!, 5_000, pino({ level: 'silent' }));
    expect(Date.now() - started).toBeLessThan(2_000);
    const answer = await inFlight;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('connection')).toBe('close');
    expect(await answer.json()).toEqual({ body: '{"a":1}' });
  });
});
