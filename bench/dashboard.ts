// Dashboard first-load benchmark: cold loads (a new browser context per sample: empty cache) of the
// first pages a user sees, in Debian's Chromium, from Blockyard as `npm start` runs it, and, as the
// baseline in the same run, the same built files from a bare node:http server with no API behind it.
// Also each page's JavaScript, gzipped, against the budget. Run: npm run bench:dashboard
// (BENCH_DASHBOARD_SAMPLES, default 15; BENCH_DASHBOARD_LATENCY_MS, default 0: every request of the
// pages delayed that much by Chromium's network emulation, a real link's round trip instead of loopback's)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { pageBudgetBytes, webBundleSizes } from '../scripts/web-bundle-sizes.ts';
import { startBlockyardService } from './support/blockyard-service.ts';
import { type ChildServer, startChildServer } from './support/child-server.ts';
import { type LoadTarget, measureColdLoad } from './support/dashboard-loads.ts';
import { formatBundleTable, formatLoadTable, formatTargetLine, type LoadRow } from './support/dashboard-report.ts';
import { signUpBenchUser } from './support/dashboard-session.ts';
import { buildWebApp, webDir } from './support/dashboard-web-build.ts';
import { describeMachine, guardRun } from './support/run-guard.ts';
import { wholeNumber } from './support/settings.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const samples = wholeNumber(process.env, 'BENCH_DASHBOARD_SAMPLES', 15, 3, 200);
const latencyMs = wholeNumber(process.env, 'BENCH_DASHBOARD_LATENCY_MS', 0, 0, 1_000);
/** Discarded loads of each page before the measured ones: the servers' first-request work (file reads, JIT). */
const warmupLoads = 1;
const baselineName = 'static server /sign-in';
const log = (line: string) => process.stderr.write(`[bench:dashboard] ${line}\n`);
/** Build, start-ups and shutdowns, then at most 20 s per load (each load has its own 20 s timeout). */
const deadlineMs = 300_000 + 4 * (samples + warmupLoads) * 20_000;

if (!existsSync(chromiumPath)) {
  console.error(`bench:dashboard needs Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`);
  process.exit(1);
}

const workDir = mkdtempSync(join(tmpdir(), 'blockyard-bench-'));
const children: ChildServer[] = [];
let browser: Browser | undefined;
const { cleanup, disarm } = guardRun({
  deadlineMs,
  log,
  async stop() {
    await browser?.close().catch(() => {});
    await Promise.allSettled(children.map((child) => child.stop()));
    rmSync(workDir, { recursive: true, force: true });
  },
});

try {
  log('building the dashboard (npm run build:web)');
  buildWebApp();
  const blockyard = await startBlockyardService({ workDir });
  children.push(blockyard.server);
  const staticServer = await startChildServer({
    name: 'static server',
    script: fileURLToPath(new URL('./support/dashboard-static-server.ts', import.meta.url)),
    env: { ...process.env, DASHBOARD_WEB_DIR: webDir },
  });
  children.push(staticServer);
  log(`blockyard at ${blockyard.server.url}, static baseline at ${staticServer.url}`);
  const user = await signUpBenchUser(blockyard.server.url, join(workDir, 'blockyard'));
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });

  const targets: [string, LoadTarget][] = [
    [baselineName, { url: `${staticServer.url}/sign-in`, heading: 'Sign in' }],
    ['blockyard /sign-in (signed out)', { url: `${blockyard.server.url}/sign-in`, heading: 'Sign in' }],
    ['blockyard /keys (signed in)', { url: `${blockyard.server.url}/keys`, heading: 'API keys', cookie: user.cookie }],
    ['blockyard /usage (signed in)', { url: `${blockyard.server.url}/usage`, heading: 'Usage', cookie: user.cookie }],
  ];
  console.log(describeMachine());
  console.log(
    `settings: ${samples} cold loads per page (a new browser context each, after ${warmupLoads} discarded), pages in turn; ` +
      `headless Chromium ${browser.version()} at 1280x860 on 127.0.0.1${latencyMs > 0 ? ` with ${latencyMs} ms added to every request` : ''}; blockyard as npm start runs it (build, log level info, ` +
      'embedded Postgres, embedded devnet), signed in as a user made through /dashboard/api/signup with one key and 3 calls',
  );
  const rows: LoadRow[] = targets.map(([name]) => ({ name, samples: [] }));
  // Round-robin: a slow moment of the VM falls on every page alike instead of on one row.
  for (let round = 0; round < warmupLoads + samples; round++) {
    for (const [index, [, target]] of targets.entries()) {
      const sample = await measureColdLoad(browser, target, latencyMs);
      if (round >= warmupLoads) rows[index]!.samples.push(sample);
    }
  }
  console.log('');
  console.log(formatLoadTable(rows, baselineName));
  console.log(
    'load: navigation start -> end of the load event; FCP: first contentful paint; ready: the page’s <h1> shows its title and ' +
      'no loading indicator is left (its API data is drawn); x base: p50 over the baseline’s p50; KiB: every response, headers included, uncompressed as served',
  );
  console.log(formatTargetLine(rows.filter((row) => row.name !== baselineName)));
  console.log('');
  const sizes = webBundleSizes(webDir);
  console.log(formatBundleTable(sizes, pageBudgetBytes));
  const over = sizes.filter((size) => size.gzipBytes > pageBudgetBytes);
  console.log(
    `every page's JavaScript < ${pageBudgetBytes / 1024} kB gzipped: ${over.length === 0 ? 'met' : `missed (${over.map((size) => size.page).join(', ')})`}`,
  );
} finally {
  await cleanup();
  disarm();
}
