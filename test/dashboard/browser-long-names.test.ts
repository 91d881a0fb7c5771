// A name of one long word (200 characters, the most a key name may have) in a real browser: the
// headings and the keys table break it rather than spill it out of their boxes.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../support/requirements.ts';
import { browserOnService, chromiumBrowser, screenshot } from './browser-support.ts';
import { createKey, signUp } from './flow-steps.ts';

const longName = 'k'.repeat(200);

/** How far each element matching `selector` reaches past the right edge of the page's main area (0: none). */
const spill = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((elements) => {
    const main = elements[0]?.ownerDocument.querySelector('main');
    const edge = main ? main.getBoundingClientRect().right : 0;
    return elements.map((element) => Math.max(0, Math.round(element.getBoundingClientRect().right - edge)));
  });

/** Elements of the page's main area that reach past the window's right edge (tag and class). */
const pastTheWindow = (page: Page) =>
  page.locator('main').evaluate((main) => {
    const edge = main.ownerDocument.documentElement.clientWidth;
    return [...main.querySelectorAll('*')]
      .filter((element) => element.getBoundingClientRect().right > edge + 1)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}`);
  });

describe('a long key name on the dashboard', () => {
  skipWithout(chromiumBrowser);
  const run = browserOnService();

  it('breaks inside the created-key heading, the keys table and the key page heading', async () => {
    const { page } = run.browser;
    page.setDefaultTimeout(10_000);
    await signUp(page, run.service, 'long-names@example.com');
    await createKey(page, longName);
    await page.getByRole('heading', { name: `Key “${longName}” created` }).waitFor();
    expect(await spill(page, 'main h2')).toEqual([0]);
    expect(await pastTheWindow(page)).toEqual([]);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    const link = page.getByRole('link', { name: longName, exact: true });
    const table = page.locator('.table-wrap');
    // The table does not need to scroll sideways for the name: it wraps within the cell.
    expect(await table.evaluate((box) => box.scrollWidth <= box.clientWidth)).toBe(true);
    await screenshot(page, 'long-key-name-list');
    await link.click();
    await page.getByRole('heading', { name: longName, level: 1 }).waitFor();
    expect(await spill(page, 'main h1')).toEqual([0]);
    expect(await pastTheWindow(page)).toEqual([]);
  }, 90_000);
});
