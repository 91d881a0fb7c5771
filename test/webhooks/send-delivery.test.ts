import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliverySender, responseBodyKeptBytes } from '../../src/webhooks/send-delivery.ts';

describe('the delivery HTTP client', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  const sockets = new Set<unknown>();
  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      sockets.add(request.socket);
      request.resume();
      if (request.url === '/silent') return;
      if (request.url === '/drip') {
        // Headers at once, then a byte every 100 ms for ever: only the whole-exchange deadline ends it.
        response.writeHead(200);
        const drip = setInterval(() => response.write('.'), 100);
        response.on('close', () => clearInterval(drip));
        return;
      }
      if (request.url === '/busy') return void response.writeHead(503, { 'Retry-After': '120' }).end('later');
      if (request.url === '/huge') return void response.writeHead(200).end('y'.repeat(1024 * 1024));
      if (request.url === '/redirect') return void response.writeHead(302, { location: '/ok' }).end();
      if (request.url === '/big') return void response.writeHead(200).end('x'.repeat(10_000));
      response.writeHead(200).end('fine');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('in production, refuses a name that resolves to loopback, after DNS, without connecting', async () => {
    const sender = createDeliverySender({ mode: 'production', timeoutMs: 2000 });
    const before = hits.length;
    const result = await sender.send(`http://localhost:${port}/ok`, { 'content-type': 'application/json' }, '{}');
    await sender.close();
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/loopback; webhooks go to public endpoints/);
    expect(hits.length).toBe(before);
  });

  it('in development, delivers to loopback; does not follow redirects; keeps the first 4 KiB of an answer', async () => {
    const sender = createDeliverySender({ mode: 'development', timeoutMs: 2000 });
    const ok = await sender.send(`http://localhost:${port}/ok`, {}, '{}');
    expect(ok).toMatchObject({ ok: true, status: 200, responseBody: 'fine', error: null });
    const before = hits.length;
    const redirect = await sender.send(`http://127.0.0.1:${port}/redirect`, {}, '{}');
    expect(redirect).toMatchObject({ ok: false, status: 302, error: 'answered 302: redirects are not followed' });
    expect(hits.slice(before)).toEqual(['/redirect']);
    const big = await sender.send(`http://127.0.0.1:${port}/big`, {}, '{}');
    expect(big.responseBody).toHaveLength(responseBodyKeptBytes);
    const refused = await sender.send('http://127.0.0.1:1/nothing', {}, '{}');
    expect(refused.error).toBe('connection to 127.0.0.1:1 refused');
    await sender.close();
  });

  it('bounds the whole exchange by one deadline, also an answer that drips; reads Retry-After; reuses its connection', async () => {
    const sender = createDeliverySender({ mode: 'development', timeoutMs: 700 });
    sockets.clear();
    for (let i = 0; i < 6; i++) expect((await sender.send(`http://127.0.0.1:${port}/ok`, {}, '{}')).ok).toBe(true);
    // undici hands a socket out again a full event loop turn after an answer: one after another, two alternate.
    expect(sockets.size).toBeLessThanOrEqual(2);
    const started = performance.now();
    const [silent, drip] = await Promise.all([
      sender.send(`http://127.0.0.1:${port}/silent`, {}, '{}'),
      sender.send(`http://127.0.0.1:${port}/drip`, {}, '{}'),
    ]);
    const took = performance.now() - started;
    expect(silent).toMatchObject({ ok: false, status: null, responseBody: null, error: 'no answer within 0.7 s' });
    expect(drip).toMatchObject({ ok: false, status: null, responseBody: null, error: 'no answer within 0.7 s' });
    expect(took).toBeGreaterThanOrEqual(650);
    expect(took).toBeLessThan(3_000);

    const busy = await sender.send(`http://127.0.0.1:${port}/busy`, {}, '{}');
    expect(busy).toMatchObject({ ok: false, status: 503, responseBody: 'later', retryAfter: '120', error: 'answered 503' });
    const huge = await sender.send(`http://127.0.0.1:${port}/huge`, {}, '{}');
    expect(huge).toMatchObject({ ok: true, status: 200, responseBody: 'y'.repeat(responseBodyKeptBytes) });
    await sender.close();
  });
});
