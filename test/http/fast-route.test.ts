import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.ts';
import { createFastDispatch, type FastRoute } from '../../src/http/fast-route.ts';
import { buildServer } from '../../src/http/server.ts';
import { createAccessLog } from '../../src/observability/access-log.ts';
import { createMetrics } from '../../src/observability/metrics.ts';

/** POST /echo/{digits}: answers from the fast route, which says so; /echo/boom/{n} throws. */
const echoRoute: FastRoute = {
  method: 'POST',
  url: '/echo/:n',
  match: (url) => /^\/echo\/(\d+|boom\/\d+|forbidden)$/.exec(url)?.slice(1),
  async handle(exchange) {
    const body = await exchange.readBody(16);
    const [n] = exchange.params;
    if (n === 'forbidden') throw new AppError('forbidden', 'not for you', { headers: { 'x-extra': 'yes' } });
    if (n!.startsWith('boom')) throw new Error('a bug');
    if (n === '0') return '';
    return JSON.stringify({ via: 'fast', n, body });
  },
};

const post = (url: string, body = '{}', headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
    signal: AbortSignal.timeout(10_000),
  });

describe('fast routes in front of Fastify', () => {
  let app: FastifyInstance;
  let url: string;
  const metrics = createMetrics({ defaultMetrics: false });
  beforeAll(async () => {
    app = await buildServer({
      logger: pino({ level: 'silent' }),
      metrics,
      fastRoutes: [echoRoute],
      plugins: [
        async (scope) => {
          scope.post('/echo/:n', async (request) => ({ via: 'fastify', n: (request.params as { n: string }).n }));
        },
      ],
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => app?.close());

  it('answers what the fast route matches and leaves everything else to Fastify', async () => {
    const fast = await post(`${url}/echo/7`, 'hi');
    expect(fast.status).toBe(200);
    expect(fast.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(fast.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await fast.json()).toEqual({ via: 'fast', n: '7', body: 'hi' });
    expect(await (await post(`${url}/echo/seven`)).json()).toEqual({ via: 'fastify', n: 'seven' });
    // Not a fast route's method: Fastify answers, and knows the path takes POST only.
    const get = await fetch(`${url}/echo/7`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it("'' is 204 without a body; errors are mapped like Fastify's error handler, bugs are a 500", async () => {
    const empty = await post(`${url}/echo/0`);
    expect(empty.status).toBe(204);
    expect(empty.headers.get('content-type')).toBeNull();
    expect(await empty.text()).toBe('');
    const forbidden = await post(`${url}/echo/forbidden`, '', { 'x-request-id': 'mine-1' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get('x-extra')).toBe('yes');
    expect(forbidden.headers.get('x-request-id')).toBe('mine-1');
    expect(await forbidden.json()).toEqual({ error: { code: 'forbidden', message: 'not for you', status: 403 } });
    const bug = await post(`${url}/echo/boom/1`);
    expect(bug.status).toBe(500);
    expect(((await bug.json()) as { error: { code: string } }).error.code).toBe('internal_error');
  });

  it('413 and a closed connection for a body over the limit', async () => {
    const large = await post(`${url}/echo/1`, 'x'.repeat(17));
    expect(large.status).toBe(413);
    expect(large.headers.get('connection')).toBe('close');
    expect(((await large.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('counts fast requests in the same series as the Fastify route', async () => {
    const series = (text: string, name: string, extra = '') =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${name}{method="POST",route="/echo/:n"${extra}`) && !line.includes('le='))
          ?.split(' ')
          .at(-1) ?? 0,
      );
    const before = await metrics.registry.metrics();
    await post(`${url}/echo/3`);
    await post(`${url}/echo/3`);
    await post(`${url}/echo/three`);
    const after = await metrics.registry.metrics();
    expect(
      series(after, 'blockyard_http_requests_total', ',status="200"') -
        series(before, 'blockyard_http_requests_total', ',status="200"'),
    ).toBe(3);
    expect(
      series(after, 'blockyard_http_request_duration_seconds_count') -
        series(before, 'blockyard_http_request_duration_seconds_count'),
    ).toBe(3);
  });
});

describe('a fast route while the server shuts down', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const dispatch = createFastDispatch({
      routes: [echoRoute],
      metrics: createMetrics({ defaultMetrics: false }),
      logger: pino({ level: 'silent' }),
      accessLog: createAccessLog(pino({ level: 'silent' })),
      requestId: () => 'closing-1',
      isClosing: () => true,
    });
    server = createServer((req, res) => {
      if (!dispatch(req, res)) res.writeHead(418).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses with 503 service_unavailable and closes the connection', async () => {
    const response = await post(`${url}/echo/1`);
    expect(response.status).toBe(503);
    expect(response.headers.get('connection')).toBe('close');
    expect(response.headers.get('x-request-id')).toBe('closing-1');
    expect(await response.json()).toEqual({
      error: {
        code: 'service_unavailable',
        message: 'the server is shutting down; retry shortly or on another instance',
        status: 503,
      },
    });
  });
});
