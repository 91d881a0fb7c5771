// A failing receiver in the dashboard: each attempt of a real block's delivery shows with the status
// code the receiver answered, in a real browser against the real back end (test events are tried once).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { skipWithout } from '../support/requirements.ts';
import { type BrowserSession, chromiumBrowser, ensureWebBuild, openBrowser, screenshot } from './browser-support.ts';
import { createWebhook, signUp } from './flow-steps.ts';

describe('a failing webhook receiver in the delivery log', () => {
  skipWithout(chromiumBrowser);
  let chain: IndexedChain;
  let browser: BrowserSession;
  let receiver: Server;
  let receiverUrl: string;
  let calls = 0;

  beforeAll(async () => {
    if (chromiumBrowser.missing) return;
    await ensureWebBuild();
    // Retries 0.2 s apart, three attempts in all, so the test sees them within a second or two.
    chain = await startIndexedChain({ settings: { webhooks: { retry_schedule_s: [0.2, 0.2] } } });
    browser = await openBrowser(chain.service.url);
    receiver = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        calls++;
        response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"down for maintenance"}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await chain?.service.stop();
    receiver?.close();
  });

  it("shows each attempt of a block's delivery with the receiver's 503, then the delivery failed and the webhook paused", async () => {
    const { page } = browser;
    await signUp(page, chain.service, 'failing@example.com');
    await createWebhook(page, receiverUrl, 'new_block');
    await chain.anvilRpc('evm_mine');
    await chain.synced();
    // The block's delivery: the first attempt and two retries, each answered 503, then failed.
    const failed = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'failed', exact: true }) });
    for (const deadline = Date.now() + 30_000; ; ) {
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      if ((await failed.count()) > 0) break;
      if (Date.now() > deadline) throw new Error(`no delivery showed as failed (the receiver got ${calls} calls)`);
      await page.waitForTimeout(500);
    }
    expect(calls).toBe(3);
    // Its retries ran out, so the webhook paused; the refresh shows that in the header too.
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await expect(failed.first().getByRole('cell', { name: '3', exact: true }).count()).resolves.toBe(1);
    await expect(failed.first().getByRole('cell', { name: '503', exact: true }).count()).resolves.toBe(1);
    await failed
      .first()
      .getByRole('button', { name: /Show the request and response/ })
      .click();
    for (const attempt of [1, 2, 3]) {
      await page.getByText(new RegExp(`^Attempt ${attempt} · .* · 503 · \\d+ ms$`)).waitFor();
    }
    await expect(page.getByText('down for maintenance').first().isVisible()).resolves.toBe(true);
    await screenshot(page, 'e2e-webhook-failing-receiver');
  }, 90_000);

  it('reported no console errors', () => {
    expect(browser.problems).toEqual([]);
  });
});
