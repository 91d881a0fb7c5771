// A cold load fetches the page's own chunk while its first session call is still out, and draws the
// page at once when both are here: no "Loading…" of React's Suspense in between, which React keeps on
// screen for at least 300 ms once drawn. The session answer is held back until the chunk is asked for
// (or 3 s pass), so a chunk fetched only after the answer fails the first check.
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../support/requirements.ts';
import { browserOnService, chromiumBrowser } from './browser-support.ts';
import { mockDashboardApi } from './mock-api.ts';

const holdMs = 3_000;

/** Runs in the page before its scripts: each change of the first `<h1>` and of the loading line, in order. */
const stateRecorder = `{
  const states = [];
  window.__states = states;
  new MutationObserver(() => {
    const h1 = document.querySelector('h1');
    const loading = document.querySelector('.loading');
    const state = { h1: h1 ? h1.textContent : null, loading: loading ? loading.textContent : null };
    const last = states[states.length - 1];
    if (!last || last.h1 !== state.h1 || last.loading !== state.loading) states.push(state);
  }).observe(document, { subtree: true, childList: true, characterData: true });
}`;

describe('a cold load of a dashboard page', () => {
  skipWithout(chromiumBrowser);
  const run = browserOnService();

  for (const [path, chunk, signedIn, heading] of [
    ['/usage', 'usage', true, 'Usage'],
    ['/webhooks/wh_1', 'webhook-detail', true, undefined],
    ['/', 'keys', true, 'API keys'],
    ['/sign-in', 'sign-in', false, 'Sign in'],
  ] as const) {
    it(`${path}${signedIn ? '' : ' (signed out)'}: the ${chunk} chunk comes beside the session call, and no Suspense fallback is drawn`, async () => {
      const { context } = run.browser;
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      try {
        await page.addInitScript({ content: stateRecorder });
        await mockDashboardApi(page, { signedIn });
        const chunkAsked = new Promise<void>((resolve) => {
          page.on('request', (request) => {
            if (new RegExp(`/assets/${chunk}-[\\w-]+\\.js$`).test(new URL(request.url()).pathname)) resolve();
          });
        });
        let askedWhileHeld: boolean | undefined;
        // Registered after the mock, so it is tried first; it then hands the call to the mock.
        await page.route('**/dashboard/api/session', async (route) => {
          if (route.request().method() === 'GET' && askedWhileHeld === undefined) {
            askedWhileHeld = await Promise.race([
              chunkAsked.then(() => true),
              new Promise<boolean>((resolve) => setTimeout(() => resolve(false), holdMs)),
            ]);
          }
          await route.fallback();
        });
        await page.goto(path);
        await page.locator('h1').first().waitFor();
        if (heading) await expect.poll(() => page.locator('h1').first().textContent()).toBe(heading);
        const states = (await page.evaluate('window.__states')) as { h1: string | null; loading: string | null }[];
        const beforeThePage = states.slice(
          0,
          states.findIndex((state) => state.h1 !== null),
        );
        const loadingLines = beforeThePage.map((state) => state.loading).filter((text) => text !== null);
        expect(loadingLines[0]).toBe('Loading the dashboard…');
        expect(loadingLines).not.toContain('Loading…');
        expect(askedWhileHeld).toBe(true);
      } finally {
        await page.close();
      }
    }, 30_000);
  }

  it('a signed-in user who opens a password-reset link gets the reset page, not "not found"', async () => {
    const page = await run.browser.context.newPage();
    page.setDefaultTimeout(10_000);
    try {
      await mockDashboardApi(page, { signedIn: true });
      await page.goto('/reset-password?token=abc');
      await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/reset-password');
    } finally {
      await page.close();
    }
  }, 30_000);

  it('the other pages come once the first is drawn, and a page already loaded is drawn on a click without a fallback', async () => {
    const page = await run.browser.context.newPage();
    page.setDefaultTimeout(10_000);
    try {
      await page.addInitScript({ content: stateRecorder });
      await mockDashboardApi(page, { signedIn: true });
      const asked = (chunk: string) =>
        page.waitForRequest((request) => new RegExp(`/assets/${chunk}-[\\w-]+\\.js$`).test(request.url()));
      const otherChunks = Promise.all(['webhooks', 'operator', 'wallet-detail'].map(asked));
      await page.goto('/usage');
      await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
      // Fetched without a click.
      await otherChunks;
      const menu = (name: string) => page.getByRole('link', { name }).first();
      await menu('Webhooks').click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await menu('Usage').click();
      await page.getByRole('heading', { name: 'Usage', level: 1 }).waitFor();
      await page.evaluate('window.__states.length = 0');
      await menu('Webhooks').click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      const states = (await page.evaluate('window.__states')) as { h1: string | null; loading: string | null }[];
      expect(states.map((state) => state.loading)).not.toContain('Loading…');
    } finally {
      await page.close();
    }
  }, 30_000);
});
