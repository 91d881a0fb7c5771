#!/usr/bin/env node
// Runs the JavaScript build in dist/ (`npm install` makes it; `npm run build` makes it again).
// `npm run dev` runs the TypeScript sources directly instead.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'dist', 'cli', 'main.js');
/** Written by every build, also when it re-emits only what changed. */
const buildInfo = join(root, 'dist', '.tsbuildinfo');

if (!existsSync(entry)) {
  process.stderr.write('blockyard: there is no build in dist/; run `npm run build` (npm install does it too)\n');
  process.exit(1);
}
if (newestSource(join(root, 'src')) > statSync(existsSync(buildInfo) ? buildInfo : entry).mtimeMs) {
  process.stderr.write(
    'blockyard: warning: src/ has changed since the build in dist/; run `npm run build`, or `npm run dev` to run the sources\n',
  );
}
await import(pathToFileURL(entry).href);

/** The latest modification time under `dir` (0 when it is missing, as in a package without sources). */
function newestSource(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const item of entries) {
    const path = join(dir, item.name);
    newest = Math.max(newest, item.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}
