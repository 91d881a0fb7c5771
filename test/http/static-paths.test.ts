import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWebApp } from '../../src/dashboard/web-routes.ts';
import { buildServer } from '../../src/http/server.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { rawRequest } from '../support/raw-request.ts';

/** Traversal and malformed paths on the dashboard's static files: 400 or 404 in the error shape, never a file outside. */
describe('static files under hostile paths', () => {
  let app: FastifyInstance;
  let url: string;
  let root: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'blockyard-static-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(join(root, 'assets', 'index.js'), 'console.log("asset")');
    // Beside assets/, as package.json is beside dist/web: no path may reach it.
    writeFileSync(join(root, 'package.json'), '{"secret":"outside the assets"}');
    const web = loadWebApp({ root });
    app = await buildServer({
      logger: pino({ level: 'silent' }),
      metrics: createMetrics(),
      pageFallback: web.page,
      plugins: [async (scope) => web.routes(scope)],
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address() as { port: number };
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await app?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('serves an asset, and the page for an app path', async () => {
    expect((await rawRequest(url, 'GET', '/assets/index.js')).text).toContain('asset');
    expect((await rawRequest(url, 'GET', '/keys')).text).toContain('<title>app</title>');
  });

  it('answers a path no route takes with the JSON 404 to a client that accepts only other types than HTML', async () => {
    for (const accept of ['application/json', 'application/json, text/plain', 'text/html;q=0, application/json', 'image/png']) {
      const answer = await rawRequest(url, 'GET', '/health', { headers: { accept } });
      expect(answer.status, accept).toBe(404);
      expect(answer.json(), accept).toEqual({ error: { code: 'not_found', message: 'no route GET /health', status: 404 } });
    }
    // No Accept, the any-type range (curl, fetch, link previews) or text/*: the app's page, whose router draws "not found".
    for (const accept of [undefined, '*/*', 'text/*', 'application/json, text/plain, */*']) {
      const answer = await rawRequest(url, 'GET', '/health', accept === undefined ? {} : { headers: { accept } });
      expect(answer.status, String(accept)).toBe(200);
      expect(answer.text, String(accept)).toContain('<title>app</title>');
    }
  });

  const hostile = [
    '/assets/..%5c..%5cpackage.json',
    '/assets/..%5cpackage.json',
    '/assets/..\\package.json',
    '/assets/index.js%00.png',
    '/assets/%00',
    '/assets/%2e%2e%2fpackage.json',
    '/assets/%2e%2e/package.json',
    '/assets/..%2fpackage.json',
    '/assets/%252e%252e%252fpackage.json',
    '/assets/..%255cpackage.json',
    '/assets/%c0%ae%c0%ae/package.json',
    '/assets/....//package.json',
    '/assets/./../package.json',
    '/assets//../package.json',
    `/assets/${'a'.repeat(5_000)}.js`,
    `/assets/${'a/'.repeat(2_000)}x.js`,
    '/assets/index.js/..',
    '/assets/.',
    '/assets/',
    '/%2e%2e/package.json',
    '/..%5cpackage.json',
    '/%00',
  ];

  const cases = hostile.map((path) => [path.length > 60 ? `${path.slice(0, 30)}… (${path.length} characters)` : path, path]);
  it.each(cases)('%s: 400 or 404 in the error shape, or the app page, and nothing from outside assets/', async (_label, path) => {
    const answer = await rawRequest(url, 'GET', path);
    expect(answer.text).not.toContain('outside the assets');
    expect(answer.status).toBeLessThan(500);
    if (answer.status === 200) {
      // A path outside /assets is an app page: its router draws "not found".
      expect(answer.text).toContain('<title>app</title>');
      expect(path.startsWith('/assets')).toBe(false);
      return;
    }
    expect([400, 404]).toContain(answer.status);
    expect(answer.json()).toEqual({ error: { code: expect.any(String), message: expect.any(String), status: answer.status } });
    expect(answer.json().error.message).not.toMatch(/\/tmp|blockyard-static|ENAMETOOLONG|EACCES/);
  });
});
