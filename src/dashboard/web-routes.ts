import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { isUnder } from '../http/path-prefix.ts';
import { type AssetFile, chooseEncoding, loadAssetFiles, matchesEtag } from './asset-files.ts';

/** Paths the web app never answers: the API's own, whose unknown paths keep their JSON 404 (and guards). */
export const apiPrefixes = [
  '/v1',
  '/admin',
  '/dashboard/api',
  '/dashboard/sign-in',
  '/docs',
  '/healthz',
  '/livez',
  '/metrics',
  '/ws',
] as const;

/** Headers of every page and asset of the dashboard. */
export const dashboardSecurityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/**
 * Where the built web app is: `dist/web` beside the compiled service (`dist/dashboard/` -> `dist/web`),
 * or the repository's `dist/web` when the service runs from `src/` under tsx. Undefined when not built.
 */
export function findWebRoot(): string | undefined {
  const candidates = [new URL('../web/', import.meta.url), new URL('../../dist/web/', import.meta.url)];
  for (const candidate of candidates) {
    const dir = fileURLToPath(candidate);
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return undefined;
}

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Blockyard dashboard not built</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2937">
<h1>The dashboard is not built</h1>
<p>This service runs without the dashboard's files (<code>dist/web</code>). Run <code>npm run build</code>
(or <code>npm install</code>) in the service's folder and start it again. For development, <code>npm run dev:web</code>
serves the dashboard with live reload.</p>
<p>The API is running: <a href="/docs">/docs</a>, <a href="/healthz">/healthz</a>.</p>
</body></html>
`;

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Whether a client takes an HTML page: no Accept header, or one with a range that matches HTML
 * (`text/html`, `application/xhtml+xml`, `text/*`, the any-type range) at q > 0, as browsers, curl and
 * link previews send. A client that names only other types (an SDK asking for JSON) does not.
 */
function takesHtml(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    if (!htmlRanges.has(type)) return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

const htmlRanges = new Set(['text/html', 'application/xhtml+xml', 'text/*', '*/*']);

/** The dashboard, a single-page app: its routes, and the page answered for paths no route takes. */
export interface WebApp {
  /** `/` and the hashed assets under `/assets/` (cached for a year). */
  routes(app: FastifyInstance): Promise<void>;
  /**
   * For a GET or HEAD no route takes, from a client that takes HTML: the app's `index.html`
   * (`no-cache`; its router draws the page), unless the path is the API's. A client that accepts only
   * other types (`Accept: application/json`) keeps the API's JSON 404. Without a build: a 503 page
   * saying to run `npm run build`. Returns whether it answered. Called from the server's not-found
   * handler rather than declared as a `/*` route: a wildcard would take every URL the router refuses
   * (a path parameter over its length limit gets its 414 only when no route matches).
   */
  page(request: FastifyRequest, reply: FastifyReply): boolean;
}

export function loadWebApp(options: { root?: string | null; log?: FastifyBaseLogger | Logger } = {}): WebApp {
  const root = options.root === undefined ? findWebRoot() : (options.root ?? undefined);
  const indexFile = root === undefined ? undefined : join(root, 'index.html');
  const indexHtml = indexFile !== undefined && existsSync(indexFile) ? readFileSync(indexFile) : undefined;
  if (!indexHtml) options.log?.warn('the dashboard is not built (dist/web is missing): run `npm run build`');

  const answer = (reply: FastifyReply) => {
    reply.headers(dashboardSecurityHeaders);
    if (!indexHtml)
      return reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(notBuiltPage);
    return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);
  };

  return {
    async routes(app) {
      if (indexHtml && root) {
        const assets = loadAssetFiles(join(root, 'assets'));
        // A wildcard, not a parameter: a name over the router's parameter length is a 404 like any unknown one.
        app.get<{ Params: { '*': string } }>('/assets/*', { schema: { hide: true } }, async (request, reply) => {
          const file = assets.get(request.params['*']);
          if (file) return sendAsset(request, reply, file);
          reply.callNotFound();
          return reply;
        });
      }
      app.get('/', { schema: { hide: true } }, async (_request, reply) => answer(reply));
    },
    page(request, reply) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return false;
      if (!takesHtml(request.headers.accept)) return false;
      const path = pathOf(request.url);
      if (apiPrefixes.some((prefix) => isUnder(path, prefix)) || isUnder(path, '/assets')) return false;
      answer(reply);
      return true;
    },
  };
}

/** An asset from memory: its compressed copy when the client takes one, cached for a year (its name is its content's hash). */
function sendAsset(request: FastifyRequest, reply: FastifyReply, file: AssetFile): FastifyReply {
  const encoding = chooseEncoding(request.headers['accept-encoding'], file);
  const body = encoding === undefined ? file.identity : file[encoding]!;
  reply
    .headers(dashboardSecurityHeaders)
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('vary', 'accept-encoding')
    .header('etag', body.etag)
    .type(file.type);
  if (encoding !== undefined) reply.header('content-encoding', encoding);
  if (matchesEtag(request.headers['if-none-match'], body.etag)) return reply.code(304).send();
  return reply.send(body.bytes);
}
