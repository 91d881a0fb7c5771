import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const outDir = fileURLToPath(new URL('../dist/web', import.meta.url));

/**
 * Writes each script and stylesheet of the build beside its `.br` and `.gz`, compressed once at the
 * highest levels; the service holds them in memory and sends them to browsers that accept them
 * (src/dashboard/asset-files.ts), a third of the bytes, with no compression work per request.
 */
function precompress(): Plugin {
  return {
    name: 'blockyard-precompress',
    apply: 'build',
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const name of readdirSync(assets)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const body = readFileSync(join(assets, name));
        writeFileSync(join(assets, `${name}.br`), brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(join(assets, `${name}.gz`), gzipSync(body, { level: 9 }));
      }
    },
  };
}

// The service the dev server forwards API calls to (`npm run dev` listens on 8080 by default).
const service = process.env.BLOCKYARD_URL ?? 'http://127.0.0.1:8080';
const forward = {
  target: service,
  changeOrigin: true,
  // The session layer checks Origin against the service's own on every state change.
  configure: (proxy: {
    on(event: 'proxyReq', listener: (request: { setHeader(name: string, value: string): void }) => void): void;
  }) => proxy.on('proxyReq', (request) => request.setHeader('origin', service)),
};

export default defineConfig(({ command }) => ({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  // A build is React's production build even when NODE_ENV says otherwise (vitest sets `test`).
  define: command === 'build' ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
  oxc: { jsx: { runtime: 'automatic' } },
  plugins: [precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    // dist/web/.vite/manifest.json: which chunks each page loads (scripts/web-bundle-sizes.ts).
    manifest: true,
  },
  server: {
    port: 5173,
    proxy: {
      '/dashboard': forward,
      '/v1': forward,
      '/docs': forward,
      '/healthz': forward,
    },
  },
}));
