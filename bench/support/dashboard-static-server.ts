// Baseline of bench:dashboard: the same built web app (dist/web) served by a bare node:http server, files
// held in memory, no API behind it. `/dashboard/api/*` answers 401, as the service does to a visitor, so
// the app draws its sign-in page; every other path that is not a file gets index.html, as the service's.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { exitWhenTold } from './child-server.ts';

const webDir = process.env.DASHBOARD_WEB_DIR;
if (!webDir) throw new Error('DASHBOARD_WEB_DIR is not set');

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const files = new Map<string, Buffer>();
for (const name of readdirSync(join(webDir, 'assets'))) files.set(`/assets/${name}`, readFileSync(join(webDir, 'assets', name)));
const indexHtml = readFileSync(join(webDir, 'index.html'));
const signedOut = JSON.stringify({ error: { code: 'unauthorized', message: 'sign in first' } });

const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0]!;
  const file = files.get(path);
  if (file) {
    response.writeHead(200, { 'content-type': types[extname(path)] ?? 'application/octet-stream' }).end(file);
  } else if (path.startsWith('/dashboard/api/')) {
    response.writeHead(401, { 'content-type': 'application/json; charset=utf-8' }).end(signedOut);
  } else {
    response.writeHead(200, { 'content-type': types['.html']!, 'cache-control': 'no-cache' }).end(indexHtml);
  }
});
server.listen(0, '127.0.0.1', () => {
  exitWhenTold(() => new Promise((resolve) => server.close(() => resolve())));
  process.stdout.write(`LISTENING http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
