// End-to-end flows of the dashboard against the real session back end (docs/dashboard-api.md): a real
// browser, a real service, no stand-ins.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWithout } from '../support/requirements.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { type BrowserSession, chromiumBrowser, ensureWebBuild, openBrowser, screenshot } from './browser-support.ts';
import { createKey, createWebhook, followVerificationMail, signUp } from './flow-steps.ts';

const flow = (name: string, body: () => Promise<void>) => it(name, body, 90_000);

describe('dashboard flows against the real back end', () => {
  skipWithout(chromiumBrowser);
  let service: TestService;
  let browser: BrowserSession;
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];

  beforeAll(async () => {
    if (chromiumBrowser.missing) return;
    await ensureWebBuild();
    service = await startTestService();
    browser = await openBrowser(service.url);
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    receiver?.close();
  });

  flow('sign up, create a key, call /v1/rpc with it, and see the calls on the usage page', async () => {
    const { page } = browser;
    await signUp(page, service, 'first@example.com');
    const key = await createKey(page, 'e2e');
    expect(key).toMatch(/^svc_test_/);
    for (let index = 0; index < 3; index++) {
      const answer = await service.rpc(key, { jsonrpc: '2.0', id: index, method: 'eth_blockNumber', params: [] });
      expect(answer.status).toBe(200);
    }
    await page.goto('/usage');
    await page.getByRole('button', { name: /1h/ }).click();
    // The usage recorder writes every 5 s.
    for (const deadline = Date.now() + 30_000; ; ) {
      await page.getByRole('button', { name: 'Refresh' }).click();
      if ((await page.getByRole('cell', { name: 'eth_blockNumber', exact: true }).count()) > 0) break;
      if (Date.now() > deadline) throw new Error('eth_blockNumber never showed on the usage page');
      await page.waitForTimeout(1000);
    }
    await screenshot(page, 'e2e-usage');
  });

  flow('webhook: create, see the secret once, send a test event, see it in the delivery log, pause and resume', async () => {
    const { page } = browser;
    await createWebhook(page, receiverUrl, 'new_block');
    await expect(page.getByRole('textbox', { name: 'Signing secret' }).inputValue()).resolves.toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/Test event .* queued/).waitFor();
    for (const deadline = Date.now() + 20_000; ; ) {
      await page.getByRole('button', { name: 'Refresh', exact: true }).click();
      if ((await page.getByRole('cell', { name: '200', exact: true }).count()) > 0) break;
      if (Date.now() > deadline) throw new Error('the test delivery never showed as 200');
      await page.waitForTimeout(500);
    }
    expect(received.length).toBeGreaterThan(0);
    await page
      .getByRole('button', { name: /Show the request and response/ })
      .first()
      .click();
    await screenshot(page, 'e2e-webhook-detail');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByRole('button', { name: 'Resume' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
  });

  flow('a form that names a network cannot be sent before the networks have loaded (a slow list is waited for)', async () => {
    const { page } = browser;
    // The network list answers 2 s late, as on a busy server: a click before it arrived sent no chain.
    const slowChains = /\/chains(\?.*)?$/;
    await page.route(slowChains, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // A page left meanwhile has dropped the request: nothing to continue.
      await route.continue().catch(() => undefined);
    });
    try {
      await page.goto('/webhooks/new');
      await expect(page.getByRole('button', { name: 'Create webhook' }).isDisabled()).resolves.toBe(true);
      const id = await createWebhook(page, receiverUrl, 'new_block');
      expect(id).toMatch(/^wh_/);
      await page.goto('/gas-policies/new');
      await expect(page.getByRole('button', { name: 'Create policy' }).isDisabled()).resolves.toBe(true);
      await page.getByRole('button', { name: 'Create policy', disabled: false }).waitFor();
    } finally {
      await page.unroute(slowChains);
    }
  });

  flow('gas policy: a bad rule value is refused by the API and the message shows at its field', async () => {
    const { page } = browser;
    await page.goto('/gas-policies/new');
    await page.getByLabel('Name').fill('bad value');
    await page.getByLabel('Max gas, total (USD)').fill('lots');
    await page.getByRole('button', { name: 'Create policy' }).click();
    const field = page.locator('.field', { has: page.getByLabel('Max gas, total (USD)') });
    await expect(field.locator('.field-error').textContent()).resolves.toMatch(/^Must be a USD amount greater than 0/);
    await screenshot(page, 'e2e-gas-policy-field-error');
  });

  flow("another account's webhook or gas policy id in the URL: not found, and nothing changed", async () => {
    const { page } = browser;
    const other = await service.createKey();
    const asOther = (method: string, path: string, body?: unknown) =>
      fetch(`${service.url}${path}`, {
        method,
        headers: { 'x-api-key': other.key, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    const webhook = await asOther('POST', '/v1/webhooks', {
      url: receiverUrl,
      chain: 'ethereum',
      network: 'devnet',
      event_type: 'new_block',
    });
    expect(webhook.status).toBe(201);
    const webhookBefore = (await webhook.json()) as { id: string; signing_secret?: string };
    const policy = await asOther('POST', '/v1/gas/policies', { name: 'theirs', chain: 'ethereum', rules: { max_gas_usd: '5' } });
    expect(policy.status).toBe(201);
    const policyBefore = (await policy.json()) as { id: string };

    await page.goto(`/webhooks/${webhookBefore.id}`);
    await page.getByRole('heading', { name: 'Webhook not found' }).waitFor();
    await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(/webhook '.+' does not exist/);
    await page.goto(`/gas-policies/${policyBefore.id}`);
    await page.getByRole('heading', { name: 'Gas policy not found' }).waitFor();
    await page.goto(`/gas-policies/${policyBefore.id}/edit`);
    await page.getByRole('heading', { name: 'Gas policy not found' }).waitFor();
    await screenshot(page, 'e2e-other-account-policy');

    const { signing_secret: _secret, ...webhookFields } = webhookBefore;
    const webhookAfter = (await (await asOther('GET', `/v1/webhooks/${webhookBefore.id}`)).json()) as Record<string, unknown>;
    expect(webhookAfter).toMatchObject({ ...webhookFields, status: 'active' });
    const policyAfter = await (await asOther('GET', `/v1/gas/policies/${policyBefore.id}`)).json();
    expect(policyAfter).toEqual(policyBefore);
  });

  flow('invitation: the invitee joins only through the link mailed to the invited address', async () => {
    const { page } = browser;
    const created = await page.evaluate(async () => {
      const session = (await (await fetch('/dashboard/api/session')).json()) as { csrf_token: string; account: { id: string } };
      const answer = await fetch('/dashboard/api/invitations', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token },
        body: JSON.stringify({ email: 'invitee@example.com', role: 'member' }),
      });
      return { status: answer.status, link: ((await answer.json()) as { link: string }).link, account: session.account.id };
    });
    expect(created.status).toBe(201);
    await page.context().clearCookies();
    await page.goto(new URL(created.link).pathname + new URL(created.link).search);
    await page.getByRole('heading', { name: 'Join the account' }).waitFor();
    await page.getByLabel('Email').fill('invitee@example.com');
    await page.getByLabel('Password', { exact: true }).fill('the invitees password');
    await page.getByRole('button', { name: 'Create account and join' }).click();
    await page.getByText('Check your email.').waitFor();
    await screenshot(page, 'e2e-invite-check-your-email');
    await followVerificationMail(page, service, 'invitee@example.com');
    const session = (await page.evaluate(async () => (await fetch('/dashboard/api/session')).json())) as { account: unknown };
    expect(session.account).toMatchObject({ id: created.account, role: 'member' });
  });

  flow('reported no console errors', async () => {
    expect(browser.problems).toEqual([]);
  });
});
