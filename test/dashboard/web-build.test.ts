// The dashboard's serving without a build (503 page) and the size budget of a build, no browser needed.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { pageBudgetBytes, webBundleSizes } from '../../scripts/web-bundle-sizes.ts';
import { loadWebApp } from '../../src/dashboard/web-routes.ts';
import { ensureWebBuild } from './browser-support.ts';

describe('dashboard serving', () => {
  it('answers / and page paths with a 503 page saying to run npm run build when dist/web is missing', async () => {
    const app = Fastify();
    const web = loadWebApp({ root: null });
    await app.register(async (scope) => web.routes(scope));
    app.setNotFoundHandler(async (request, reply) => (web.page(request, reply) ? reply : reply.code(404).send({})));
    app.get('/v1/ping', async () => ({ ok: true }));
    for (const path of ['/', '/keys', '/webhooks/wh_1']) {
      const answer = await app.inject({ method: 'GET', url: path });
      expect(answer.statusCode, path).toBe(503);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
      expect(answer.body).toContain('npm run build');
    }
    expect((await app.inject({ method: 'GET', url: '/v1/ping' })).json()).toEqual({ ok: true });
    expect((await app.inject({ method: 'GET', url: '/v1/unknown' })).statusCode).toBe(404);
    await app.close();
  });

  it('sends the assets brotli- or gzip-compressed to browsers that accept it, and as they are to others', async () => {
    await ensureWebBuild();
    const web = loadWebApp();
    const app = Fastify();
    await app.register(async (scope) => web.routes(scope));
    const page = await app.inject({ method: 'GET', url: '/' });
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    const plain = await app.inject({ method: 'GET', url: script!, headers: { 'accept-encoding': 'identity' } });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    for (const encoding of ['br', 'gzip'] as const) {
      const compressed = await app.inject({ method: 'GET', url: script!, headers: { 'accept-encoding': encoding } });
      expect(compressed.headers['content-encoding']).toBe(encoding);
      expect(compressed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(compressed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 2);
      const decoded = encoding === 'br' ? brotliDecompressSync(compressed.rawPayload) : gunzipSync(compressed.rawPayload);
      expect(decoded.equals(plain.rawPayload)).toBe(true);
    }
    await app.close();
  }, 120_000);

  it(`keeps every page's JavaScript under ${pageBudgetBytes / 1024} kB gzipped`, async () => {
    await ensureWebBuild();
    const sizes = webBundleSizes();
    expect(sizes.length).toBeGreaterThan(15);
    for (const size of sizes) expect(size.gzipBytes, size.page).toBeLessThan(pageBudgetBytes);
  }, 120_000);
});
