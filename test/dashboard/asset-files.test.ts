// The dashboard's assets served from memory: encodings as the client weighs them, entity tags, HEAD.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseEncoding, loadAssetFiles, matchesEtag } from '../../src/dashboard/asset-files.ts';
import { loadWebApp } from '../../src/dashboard/web-routes.ts';

const script = `console.log(${JSON.stringify('x'.repeat(4_000))});`;
const style = 'body { color: #123456; }';

describe('dashboard assets from memory', () => {
  let root: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'blockyard-assets-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><script src="/assets/app-1a2b.js"></script>');
    writeFileSync(join(root, 'assets', 'app-1a2b.js'), script);
    writeFileSync(join(root, 'assets', 'app-1a2b.js.br'), brotliCompressSync(script));
    writeFileSync(join(root, 'assets', 'app-1a2b.js.gz'), gzipSync(script));
    writeFileSync(join(root, 'assets', 'style-3c4d.css'), style);
    const web = loadWebApp({ root });
    app = Fastify();
    await app.register(async (scope) => web.routes(scope));
    app.setNotFoundHandler(async (_request, reply) => reply.code(404).send({ error: 'not found' }));
    // Read once at start: the files can go and the assets are still answered.
    rmSync(join(root, 'assets'), { recursive: true });
  });
  afterAll(async () => {
    await app?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

  it('sends the copy the client weighs highest, and the file as it is when it takes none', async () => {
    const cases: [string | undefined, string | undefined][] = [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['*', 'br'],
      ['identity', undefined],
      ['gzip;q=0, br;q=0', undefined],
      [undefined, undefined],
    ];
    for (const [acceptEncoding, expected] of cases) {
      const answer = await get('/assets/app-1a2b.js', acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding });
      expect(answer.statusCode, acceptEncoding).toBe(200);
      expect(answer.headers['content-encoding'], acceptEncoding).toBe(expected);
      expect(answer.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(answer.headers.vary).toBe('accept-encoding');
      expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
      const decoded =
        expected === 'br'
          ? brotliDecompressSync(answer.rawPayload)
          : expected === 'gzip'
            ? gunzipSync(answer.rawPayload)
            : answer.rawPayload;
      expect(decoded.toString()).toBe(script);
    }
  });

  it('sends a file without copies as it is, whatever the client takes', async () => {
    const answer = await get('/assets/style-3c4d.css', { 'accept-encoding': 'br, gzip' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(answer.body).toBe(style);
  });

  it('answers 304 to an If-None-Match naming the representation, strong or weak, and 200 to another tag', async () => {
    const first = await get('/assets/app-1a2b.js', { 'accept-encoding': 'gzip' });
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await get('/assets/app-1a2b.js', { 'accept-encoding': 'gzip', 'if-none-match': ifNoneMatch });
      expect(again.statusCode, ifNoneMatch).toBe(304);
      expect(again.rawPayload.length).toBe(0);
    }
    // The brotli copy is another representation with a tag of its own.
    const brotli = await get('/assets/app-1a2b.js', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(brotli.statusCode).toBe(200);
    expect(brotli.headers.etag).not.toBe(etag);
  });

  it('answers HEAD with the length of what GET sends and no body', async () => {
    const head = await app.inject({ method: 'HEAD', url: '/assets/app-1a2b.js', headers: { 'accept-encoding': 'gzip' } });
    expect(head.statusCode).toBe(200);
    expect(Number(head.headers['content-length'])).toBe(gzipSync(script).length);
    expect(head.rawPayload.length).toBe(0);
  });

  it('knows only the files themselves: a compressed copy, a subpath or an unknown name is not found', async () => {
    for (const url of [
      '/assets/app-1a2b.js.br',
      '/assets/app-1a2b.js.gz',
      '/assets/x/app-1a2b.js',
      '/assets/nope.js',
      '/assets/',
    ]) {
      expect((await get(url)).statusCode, url).toBe(404);
    }
  });
});

describe('chooseEncoding and matchesEtag', () => {
  const body = { bytes: Buffer.from('x'), etag: '"t"' };
  it('offers only the copies a file has', () => {
    expect(chooseEncoding('br', { type: 'text/css', identity: body, gzip: body })).toBeUndefined();
    expect(chooseEncoding('br, gzip', { type: 'text/css', identity: body, gzip: body })).toBe('gzip');
    expect(chooseEncoding('gzip;q=abc, br', { type: 'text/css', identity: body, gzip: body, br: body })).toBe('br');
  });
  it('compares tags weakly, as a GET does', () => {
    expect(matchesEtag('W/"t"', '"t"')).toBe(true);
    expect(matchesEtag('"a" , "t"', '"t"')).toBe(true);
    expect(matchesEtag('"a"', '"t"')).toBe(false);
    expect(matchesEtag(undefined, '"t"')).toBe(false);
  });
  it('reads nothing from a missing folder', () => {
    expect(loadAssetFiles(join(tmpdir(), 'blockyard-no-such-folder')).size).toBe(0);
  });
});
