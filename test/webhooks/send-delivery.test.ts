import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliverySender, responseBodyKeptBytes } from '../../src/webhooks/send-delivery.ts';

describe('the delivery HTTP client', () => {
  let server: Server;
  let port: number;
  const hits: string[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      request.resume();
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
});
