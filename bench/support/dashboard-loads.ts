// One cold load of a dashboard page in Chromium: a new browser context (empty cache, no service worker,
// only the cookies given), then the page's own clock from navigation start.
import type { Browser } from 'playwright-core';

export interface ColdLoad {
  /** Navigation start -> end of the `load` event. */
  loadMs: number;
  /** First contentful paint. */
  fcpMs: number;
  /** The page's `<h1>` shows its title and no loading indicator is left: its data is on screen. */
  readyMs: number;
  /** Every response of the load (HTML, JS, CSS, API answers), headers included, as Resource Timing counts them. */
  bytes: number;
  requests: number;
}

export interface LoadTarget {
  url: string;
  /** The text of the page's `<h1>` once it is drawn. */
  heading: string;
  /** The session cookie, for a signed-in page. */
  cookie?: { name: string; value: string };
}

/** One sample may take this long (the whole run has its own deadline too). */
const sampleTimeoutMs = 20_000;

// In-page code is text: this project's TypeScript has no DOM types (Node only).
/** Runs in the page before any of its scripts: notes when the page is first ready, on each DOM change. */
const readyProbe = (heading: string) => `{
  const heading = ${JSON.stringify(heading)};
  const observer = new MutationObserver(() => {
    if (window.__readyAt !== undefined) return;
    const h1 = document.querySelector('h1');
    if (h1 && h1.textContent === heading && !document.querySelector('.loading')) {
      window.__readyAt = performance.now();
      observer.disconnect();
    }
  });
  observer.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
}`;
const settled = `window.__readyAt !== undefined && performance.getEntriesByName('first-contentful-paint').length > 0`;
const timings = `(() => {
  const navigation = performance.getEntriesByType('navigation')[0];
  const resources = performance.getEntriesByType('resource');
  return {
    loadMs: navigation.loadEventEnd - navigation.startTime,
    fcpMs: performance.getEntriesByName('first-contentful-paint')[0].startTime,
    readyMs: window.__readyAt,
    bytes: [navigation, ...resources].reduce((sum, entry) => sum + entry.transferSize, 0),
    requests: 1 + resources.length,
  };
})()`;

/**
 * `latencyMs` > 0 delays every request of the page by that much (Chromium's own network emulation,
 * as DevTools' throttling does it): a link with a real round trip instead of loopback's.
 */
export async function measureColdLoad(browser: Browser, target: LoadTarget, latencyMs = 0): Promise<ColdLoad> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US', timezoneId: 'UTC' });
  try {
    if (target.cookie) await context.addCookies([{ ...target.cookie, url: new URL(target.url).origin }]);
    await context.addInitScript({ content: readyProbe(target.heading) });
    const page = await context.newPage();
    page.setDefaultTimeout(sampleTimeoutMs);
    if (latencyMs > 0) {
      const devtools = await context.newCDPSession(page);
      await devtools.send('Network.enable');
      await devtools.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: latencyMs,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
    }
    await page.goto(target.url, { waitUntil: 'load', timeout: sampleTimeoutMs });
    // Polled through page.evaluate (the DevTools protocol): waitForFunction evaluates a string with eval,
    // which the dashboard's CSP refuses. The times themselves are the page's own, not the poll's.
    for (const deadline = Date.now() + sampleTimeoutMs; !(await page.evaluate(settled)); ) {
      if (Date.now() > deadline) throw new Error(`${target.url}: not ready within ${sampleTimeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return (await page.evaluate(timings)) as ColdLoad;
  } finally {
    await context.close();
  }
}
