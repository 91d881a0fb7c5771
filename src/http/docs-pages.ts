import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** The repository's docs/: beside `src/` and `dist/` alike (`src/http/` -> `docs/`). */
const docsDir = fileURLToPath(new URL('../../docs/', import.meta.url));

/**
 * Serves every page of docs/ at `/docs/<name>.md`, as plain text (any browser shows it, curl too), so the
 * API reference at /docs and the error messages can link the pages they cite (`/docs/errors.md`).
 * The list is read once at start; a package without docs/ serves none.
 */
export async function docsPages(app: FastifyInstance, options: { dir?: string } = {}): Promise<void> {
  const dir = options.dir ?? docsDir;
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.md'));
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    app.get(`/docs/${name}`, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('cache-control', 'no-cache')
        .header('x-content-type-options', 'nosniff')
        .type('text/plain; charset=utf-8')
        .send(await readFile(path, 'utf8')),
    );
  }
}
