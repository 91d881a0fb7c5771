// Real-browser tests of the dashboard: Debian's chromium driven by playwright-core, against a real
// service serving the built web app (dist/web).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { Requirement } from '../support/requirements.ts';
import { startTestService, type TestService } from '../support/service.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const screenshotDir = join(root, 'test-results', 'screenshots');

function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
  return candidates.find((path): path is string => !!path && existsSync(path));
}

export const chromiumPath = findChromium();

/** For `skipWithout` (test/support/requirements.ts): `npm test` passes on a machine with only Node and npm. */
export const chromiumBrowser: Requirement = {
  command: 'chromium',
  missing: chromiumPath ? undefined : 'needs a Chromium, which is not installed here: apt-get install chromium (CI installs it)',
};

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the web app into dist/web when it is missing or older than a file of web/ (once across
 * parallel test files: a lock directory).
 */
export async function ensureWebBuild(): Promise<void> {
  const index = join(root, 'dist', 'web', 'index.html');
  const fresh = () => existsSync(index) && statSync(index).mtimeMs >= newestMtime(join(root, 'web'));
  if (fresh()) return;
  const lock = join(root, 'dist', '.web-build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (const deadline = Date.now() + 120_000; ; ) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  try {
    if (!fresh()) {
      execFileSync(
        process.execPath,
        [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
        {
          cwd: root,
          // vitest's NODE_ENV=test would otherwise ask Vite for React's development build.
          env: { ...process.env, NODE_ENV: 'production' },
          stdio: 'inherit',
          timeout: 120_000,
        },
      );
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Problems the page reported: console errors (CSP violations among them) and uncaught exceptions. */
  problems: string[];
  close(): Promise<void>;
}

/** A fresh browser with one page on `baseURL`, collecting console errors. */
export async function openBrowser(baseURL: string, viewport = { width: 1280, height: 860 }): Promise<BrowserSession> {
  if (!chromiumPath) throw new Error('no chromium');
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
  const context = await browser.newContext({ baseURL, viewport, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    // The mocked API's refusals (401 before signing in, 400s the tests provoke) are logged by Chromium as failed loads.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  return {
    browser,
    context,
    page,
    problems,
    close: () => browser.close(),
  };
}

/** Writes `test-results/screenshots/<name>.png` (the whole page). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  // From the top: a full-page shot of a scrolled page draws the sticky header and menu where they were.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The enclosing describe's test service and a browser on it: started before its tests (when Chromium is here), stopped after. */
export function browserOnService(): { service: TestService; browser: BrowserSession } {
  const run = {} as { service: TestService; browser: BrowserSession };
  beforeAll(async () => {
    if (chromiumBrowser.missing) return;
    await ensureWebBuild();
    run.service = await startTestService();
    run.browser = await openBrowser(run.service.url);
  }, 180_000);
  afterAll(async () => {
    await run.browser?.close();
    await run.service?.stop();
  });
  return run;
}
