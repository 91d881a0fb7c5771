import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetcher, type SafeFetchOptions } from '../../src/nfts/metadata/safe-fetch.ts';
import { startHttpServer, type TestHttpServer } from './support/http-server.ts';

const twoMiB = 2 * 1024 * 1024;
// Far more than loopback socket buffers hold, so a reader that stops early is visible at the server.
const hugeBody = 64 * 1024 * 1024;

describe('safe fetcher', () => {
  let server: TestHttpServer;
  let hugeBytesWritten = 0;
  let pendingSlow: ServerResponse[] = [];

  beforeAll(async () => {
    server = await startHttpServer((request, response) => {
      const path = request.url ?? '/';
      if (path === '/meta.json') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"ok"}');
      if (path === '/slow') {
        pendingSlow.push(response);
        return;
      }
      if (path === '/trickle') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write('{"name":');
        pendingSlow.push(response);
        return;
      }
      if (path === '/huge') {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (hugeBytesWritten < hugeBody) {
            hugeBytesWritten += chunk.length;
            if (!response.write(chunk)) return response.once('drain', pump);
          }
          response.end();
        };
        response.on('close', () => response.removeAllListeners('drain'));
        return pump();
      }
      if (path === '/declared-huge') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(twoMiB) });
        return response.write('{');
      }
      if (path === '/missing') return response.writeHead(404).end('no');
      if (path.startsWith('/redirect-to?')) {
        const target = new URL(path, 'http://x').searchParams.get('url') ?? '/';
        return response.writeHead(302, { location: target }).end();
      }
      const loop = /^\/loop\/(\d+)$/.exec(path);
      if (loop) return response.writeHead(301, { location: `/loop/${Number(loop[1]) + 1}` }).end();
      response.writeHead(500).end();
    });
  });
  afterAll(async () => {
    for (const response of pendingSlow) response.destroy();
    pendingSlow = [];
    await server?.close();
  });

  const fetcher = (options: Partial<SafeFetchOptions> = {}) =>
    createSafeFetcher({ mode: 'development', timeoutMs: 2_000, maxBytes: 64 * 1024, ...options });

  it('fetches from loopback in development mode and follows redirects', async () => {
    const result = await fetcher().fetch(`${server.url}/redirect-to?url=/meta.json`);
    expect(result).toMatchObject({ ok: true, url: `${server.url}/meta.json`, contentType: 'application/json' });
    if (result.ok) expect(result.body.toString()).toBe('{"name":"ok"}');
  });

  it('connects to the address it resolved and checked, not to a second DNS answer', async () => {
    const resolved: string[] = [];
    const result = await fetcher({
      resolve: async (host) => {
        resolved.push(host);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    }).fetch(`http://metadata.test:${server.port}/meta.json`);
    expect(result).toMatchObject({ ok: true });
    expect(resolved).toEqual(['metadata.test']);
  });

  it('refuses loopback in production mode, literal or resolved, in any spelling', async () => {
    const production = fetcher({ mode: 'production', resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(await production.fetch(`https://127.0.0.1:${server.port}/meta.json`)).toEqual({
      ok: false,
      reason: 'address 127.0.0.1 is loopback',
    });
    expect(await production.fetch(`https://0x7f000001:${server.port}/`)).toEqual({
      ok: false,
      reason: 'address 127.0.0.1 is loopback',
    });
    expect(await production.fetch(`https://[::1]:${server.port}/`)).toEqual({ ok: false, reason: 'address ::1 is loopback' });
    expect(await production.fetch(`https://[::ffff:127.0.0.1]:${server.port}/`)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^address ::ffff:7f00:1 is loopback$/),
    });
    expect(await production.fetch(`https://rebind.test:${server.port}/`)).toEqual({
      ok: false,
      reason: 'address 127.0.0.1 is loopback',
    });
  });

  it('refuses a host when any of its addresses is private', async () => {
    const result = await fetcher({
      mode: 'production',
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
    }).fetch('https://mixed.test/meta.json');
    expect(result).toEqual({ ok: false, reason: 'address 10.0.0.1 is private' });
  });

  it('checks every redirect: a redirect to a private or link-local address is refused', async () => {
    // Development mode lets the first hop reach loopback; the redirect targets are still checked.
    expect(await fetcher().fetch(`${server.url}/redirect-to?url=http://10.0.0.1/x`)).toEqual({
      ok: false,
      reason: 'address 10.0.0.1 is private',
    });
    expect(await fetcher().fetch(`${server.url}/redirect-to?url=http://169.254.169.254/latest/meta-data`)).toEqual({
      ok: false,
      reason: 'address 169.254.169.254 is link-local',
    });
    // In production a trusted origin (a configured gateway) may be local, but where it redirects to is checked.
    const production = fetcher({ mode: 'production', trustedOrigins: [server.url] });
    expect(await production.fetch(`${server.url}/meta.json`)).toMatchObject({ ok: true });
    expect(await production.fetch(`${server.url}/redirect-to?url=https://10.1.2.3/x`)).toEqual({
      ok: false,
      reason: 'address 10.1.2.3 is private',
    });
    expect(await production.fetch(`${server.url}/redirect-to?url=http://[fd00::1]/x`)).toEqual({
      ok: false,
      reason: 'http URLs are refused outside development mode; use https',
    });
    expect(await production.fetch(`${server.url}/redirect-to?url=https://[fd00::1]/x`)).toEqual({
      ok: false,
      reason: 'address fd00::1 is unique-local',
    });
  });

  it('stops after 5 redirects', async () => {
    expect(await fetcher().fetch(`${server.url}/loop/0`)).toEqual({ ok: false, reason: 'more than 5 redirects' });
  });

  it('refuses http and other schemes outside development mode', async () => {
    const production = fetcher({ mode: 'production' });
    expect(await production.fetch('http://example.com/x')).toEqual({
      ok: false,
      reason: 'http URLs are refused outside development mode; use https',
    });
    expect(await production.fetch('file:///etc/passwd')).toEqual({ ok: false, reason: "unsupported URL scheme 'file:'" });
    expect(await production.fetch('not a url')).toEqual({ ok: false, reason: 'not a valid URL' });
  });

  it('gives up after the timeout on a server that never answers, or answers too slowly', async () => {
    for (const path of ['/slow', '/trickle']) {
      const started = performance.now();
      const result = await fetcher({ timeoutMs: 300 }).fetch(`${server.url}${path}`);
      expect(result).toEqual({ ok: false, reason: 'timeout after 300 ms' });
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });

  it('stops reading a body larger than the cap', async () => {
    const result = await fetcher({ maxBytes: 4096 }).fetch(`${server.url}/huge`);
    expect(result).toEqual({ ok: false, reason: 'response larger than 4096 bytes' });
    // The server could not push the whole body: the connection was closed early.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(hugeBytesWritten).toBeLessThan(hugeBody);
    expect(await fetcher({ maxBytes: 4096 }).fetch(`${server.url}/declared-huge`)).toEqual({
      ok: false,
      reason: 'response larger than 4096 bytes',
    });
  });

  it('reports HTTP errors and unreachable hosts as reasons', async () => {
    expect(await fetcher().fetch(`${server.url}/missing`)).toEqual({
      ok: false,
      reason: `HTTP 404 from 127.0.0.1:${server.port}`,
    });
    const closed = await startHttpServer(() => {});
    const closedUrl = closed.url;
    await closed.close();
    expect(await fetcher().fetch(`${closedUrl}/x`)).toEqual({
      ok: false,
      reason: `connection to ${closedUrl.slice('http://'.length)} refused`,
    });
    expect(await fetcher({ resolve: async () => [] }).fetch('https://nowhere.test/')).toEqual({
      ok: false,
      reason: 'host nowhere.test not found',
    });
  });
});
