import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;

/** Every .ts file under `dir` (relative to the repository), with its path from the repository's root and its text. */
export function sources(dir: string): { path: string; text: string }[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(root, dir, name))
    .map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
}

/** The module specifiers a file imports or re-exports: `import`, `import type`, `export … from`, bare and dynamic imports. */
export function importsOf(text: string): string[] {
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*'([^']+)'/g)].map((match) => match[1]!);
  const bare = [...text.matchAll(/(?:^|\n)\s*import\s*'([^']+)'/g)].map((match) => match[1]!);
  const dynamic = [...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((match) => match[1]!);
  return [...specifiers, ...bare, ...dynamic];
}
