import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

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
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
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
