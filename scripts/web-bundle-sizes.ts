// The JavaScript each dashboard page loads, gzipped: the entry (with its static imports) plus the page's
// lazy chunk (with its own). Reads the Vite manifest of a build (`npm run build:web`).
// `node --import tsx scripts/web-bundle-sizes.ts` prints the table and fails over the budget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** Each page's JavaScript at most, gzipped (issue 12). */
export const pageBudgetBytes = 300 * 1024;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export interface PageSize {
  /** The page's source (`src/pages/keys.tsx`), or `entry` for what every page loads. */
  page: string;
  files: string[];
  gzipBytes: number;
}

export function webBundleSizes(webDir = fileURLToPath(new URL('../dist/web/', import.meta.url))): PageSize[] {
  const manifest = JSON.parse(readFileSync(join(webDir, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const closure = (key: string, into = new Set<string>()) => {
    const chunk = manifest[key];
    if (!chunk || into.has(chunk.file)) return into;
    into.add(chunk.file);
    for (const imported of chunk.imports ?? []) closure(imported, into);
    return into;
  };
  const gzipOf = (files: Iterable<string>) =>
    [...files].reduce((sum, file) => sum + gzipSync(readFileSync(join(webDir, file)), { level: 9 }).length, 0);
  const entryKey = Object.keys(manifest).find((key) => manifest[key]?.isEntry);
  if (!entryKey) throw new Error('no entry chunk in the manifest');
  const entryFiles = closure(entryKey);
  const sizes: PageSize[] = [{ page: 'entry', files: [...entryFiles], gzipBytes: gzipOf(entryFiles) }];
  for (const [key, chunk] of Object.entries(manifest)) {
    if (!chunk.isDynamicEntry || !key.includes('pages/')) continue;
    const files = closure(key, new Set(entryFiles));
    sizes.push({ page: chunk.src ?? key, files: [...files], gzipBytes: gzipOf(files) });
  }
  return sizes.sort((a, b) => b.gzipBytes - a.gzipBytes);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const sizes = webBundleSizes();
  for (const size of sizes) console.log(`${(size.gzipBytes / 1024).toFixed(1).padStart(7)} kB  ${size.page}`);
  const over = sizes.filter((size) => size.gzipBytes > pageBudgetBytes);
  if (over.length > 0) {
    console.error(`over the ${pageBudgetBytes / 1024} kB budget: ${over.map((size) => size.page).join(', ')}`);
    process.exit(1);
  }
}
