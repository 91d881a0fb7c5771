import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** Where `npm run build:web` writes the dashboard, and where the compiled service serves it from. */
export const webDir = join(root, 'dist', 'web');

/** The dashboard's build, made again as `npm run build:web` makes it, so the benchmark never loads stale files. */
export function buildWebApp(): void {
  execFileSync(
    process.execPath,
    [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
    { cwd: root, env: { ...process.env, NODE_ENV: 'production' }, stdio: 'inherit', timeout: 300_000 },
  );
}
