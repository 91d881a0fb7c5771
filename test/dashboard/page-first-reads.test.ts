// A cold load of a signed-in page asks for the page's first data beside its session call, and the page
// uses that answer instead of asking again. The session answer is held back until the data is asked
// for (or 3 s pass), so data asked for only after the answer fails the first check; a page that asks
// again (its URL differs from the early one) fails the second.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../support/requirements.ts';
import { browserOnService, chromiumBrowser } from './browser-support.ts';
import { mockDashboardApi } from './mock-api.ts';

const holdMs = 3_000;
const api = '/dashboard/api';
const now = new Date('2026-12-06T12:34:56.789Z');

/** Every GET of the dashboard API the page makes, path and query, in order. */
function apiReads(page: Page): string[] {
  const reads: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (request.method() === 'GET' && url.pathname.startsWith(`${api}/`)) reads.push(`${url.pathname}${url.search}`);
  });
  return reads;
}

describe('the first data of a dashboard page', () => {
  skipWithout(chromiumBrowser);
  const run = browserOnService();

  for (const [path, heading, firstReads] of [
    ['/keys', 'API keys', [`${api}/keys`]],
    ['/', 'API keys', [`${api}/keys`]],
    [
      '/usage',
      'Usage',
      [
        `${api}/v1/usage?from=2026-12-05T12%3A35%3A00.000Z&to=2026-12-06T12%3A35%3A00.000Z&granularity=hour&group_by=key`,
        `${api}/v1/usage?from=2026-12-05T12%3A35%3A00.000Z&to=2026-12-06T12%3A35%3A00.000Z&granularity=hour&group_by=method`,
        `${api}/keys`,
      ],
    ],
    ['/webhooks', 'Webhooks', [`${api}/v1/webhooks?page=1&limit=25`]],
    ['/webhooks/wh_3kd9', undefined, [`${api}/v1/webhooks/wh_3kd9`, `${api}/v1/webhooks/wh_3kd9/deliveries?page=1&limit=25`]],
    ['/gas-policies', 'Gas policies', [`${api}/v1/gas/policies?page=1&limit=25`]],
    ['/gas-policies/gp_71x', undefined, [`${api}/v1/gas/policies/gp_71x`, `${api}/v1/gas/policies/gp_71x/usage`]],
    ['/chains', 'Chains', [`${api}/chains`]],
    ['/members', 'Members', [`${api}/members`]],
  ] as const) {
    it(`${path}: ${firstReads.length === 1 ? 'its data is' : 'both its reads are'} asked for beside the session call, and once`, async () => {
      const page = await run.browser.context.newPage();
      page.setDefaultTimeout(10_000);
      try {
        // The usage page's window ends at the end of the current minute: a fixed clock keeps it there.
        await page.clock.setFixedTime(now);
        await mockDashboardApi(page, { signedIn: true });
        const reads = apiReads(page);
        const allAsked = () => firstReads.every((read) => reads.includes(read));
        let askedWhileHeld: boolean | undefined;
        // Registered after the mock, so it is tried first; it then hands the call to the mock.
        await page.route(`**${api}/session`, async (route) => {
          if (route.request().method() === 'GET' && askedWhileHeld === undefined) {
            const deadline = Date.now() + holdMs;
            while (!allAsked() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
            askedWhileHeld = allAsked();
          }
          await route.fallback();
        });
        await page.goto(path);
        await page.locator('h1').first().waitFor();
        if (heading) await expect.poll(() => page.locator('h1').first().textContent()).toBe(heading);
        await page.waitForLoadState('networkidle');
        expect(askedWhileHeld, `asked while the session was held: ${JSON.stringify(reads)}`).toBe(true);
        for (const read of firstReads)
          expect(
            reads.filter((made) => made === read),
            read,
          ).toHaveLength(1);
        expect(await page.locator('.alert-error').count()).toBe(0);
      } finally {
        await page.close();
      }
    }, 30_000);
  }

  it('signed out: the early read is refused, and after signing in the page asks again and shows its data', async () => {
    const page = await run.browser.context.newPage();
    page.setDefaultTimeout(10_000);
    try {
      await mockDashboardApi(page, { signedIn: false });
      const reads = apiReads(page);
      await page.goto('/keys');
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByLabel('Email').fill('ada@example.com');
      await page.getByLabel('Password', { exact: true }).fill('a long enough password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      await page.getByText('backend (production)').first().waitFor();
      expect(await page.locator('.alert-error').count()).toBe(0);
      expect(reads.filter((made) => made === `${api}/keys`)).toHaveLength(2);
    } finally {
      await page.close();
    }
  }, 30_000);
});
