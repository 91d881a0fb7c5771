// The dashboard's serving without a build (503 page) and the size budget of a build, no browser needed.
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

  it(`keeps every page's JavaScript under ${pageBudgetBytes / 1024} kB gzipped`, async () => {
    await ensureWebBuild();
    const sizes = webBundleSizes();
    expect(sizes.length).toBeGreaterThan(15);
    for (const size of sizes) expect(size.gzipBytes, size.page).toBeLessThan(pageBudgetBytes);
  }, 120_000);
});
