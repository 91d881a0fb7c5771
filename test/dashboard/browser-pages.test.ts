// The dashboard in a real browser, served by a real service, with /dashboard/api stood in for inside
// the browser (mock-api.ts): every page renders, behaves, and is screenshotted
// (test-results/screenshots/). The flows against the real session back end are browser-flows.test.ts.

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../support/requirements.ts';
import { seriousAccessibilityProblems } from './accessibility.ts';
import { browserOnService, chromiumBrowser, openBrowser, screenshot } from './browser-support.ts';
import { csrfToken, type MockApi, mockDashboardApi } from './mock-api.ts';

/** No serious or critical axe violation on the page as drawn; each one is printed on a line of its own. */
async function expectAccessible(page: Page, name: string): Promise<void> {
  expect(await seriousAccessibilityProblems(page), `accessibility of ${name}`).toEqual([]);
}

describe('dashboard pages in a browser', () => {
  skipWithout(chromiumBrowser);
  const run = browserOnService();
  let api: MockApi;

  it('serves the app at / with the security headers, hashed assets cached for a year, and leaves the API its 404s', async () => {
    const page = await fetch(`${run.service.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    const html = await page.text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${run.service.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);

    // A page path the app routes itself: index.html again.
    const deep = await fetch(`${run.service.url}/webhooks/wh_123?x=1`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);
    // The same path from a client that accepts only JSON: the API's JSON 404.
    const notPage = await fetch(`${run.service.url}/webhooks/wh_123`, { headers: { accept: 'application/json' } });
    expect(notPage.status).toBe(404);
    expect(notPage.headers.get('content-type')).toMatch(/application\/json/);
    // The API's prefixes keep their JSON answers.
    for (const [path, status] of [
      ['/v1/nothing-here', 401],
      ['/dashboard/api/nothing-here', 404],
      ['/admin/nothing', 401],
      ['/assets/missing.js', 404],
      ['/healthz', 200],
    ] as const) {
      const answer = await fetch(`${run.service.url}${path}`);
      expect(answer.status, path).toBe(status);
      expect(answer.headers.get('content-type'), path).toMatch(/application\/json/);
      expect(answer.headers.get('content-security-policy'), path).toBeNull();
    }
  });

  it('shows the sign-in page to a visitor, with the API’s error in words', async () => {
    const { page } = run.browser;
    api = await mockDashboardApi(page, { signedIn: false });
    await page.goto('/usage');
    await page.waitForURL(/\/sign-in\?next=%2Fusage/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'sign-in');
    await expectAccessible(page, 'sign-in');
    api.failNext('POST', '/session', 401, 'unauthorized', 'email or password is wrong');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('email or password is wrong');
    await screenshot(page, 'sign-in-error');

    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/usage$/);
    await page.getByRole('heading', { name: 'Usage' }).waitFor();
    await page.unrouteAll();
  });

  it('renders sign-up, forgot-password, reset-password and invitation pages', async () => {
    const { page } = run.browser;
    api = await mockDashboardApi(page, { signedIn: false });
    for (const [path, heading, name] of [
      ['/sign-up', 'Create an account', 'sign-up'],
      ['/forgot-password', 'Reset your password', 'forgot-password'],
      ['/reset-password?token=abc', 'Choose a new password', 'reset-password'],
      ['/invite?token=inv_tok_1', 'Join the account', 'invite-sign-up'],
      ['/verify-email?token=abc', 'Confirm your email', 'verify-email'],
    ] as const) {
      await page.goto(path);
      await page.getByRole('heading', { name: heading }).waitFor();
      await screenshot(page, name);
      await expectAccessible(page, name);
    }
    // A short password: the API's 400 names `password`; the message sits at that field.
    api.failNext('POST', '/signup', 400, 'invalid_request', "invalid body 'password': must be at least 10 characters long");
    await page.goto('/sign-up');
    await page.getByLabel('Email').fill('new@example.com');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    const field = page.locator('.field', { has: page.getByLabel('Password', { exact: true }) });
    await expect(field.locator('.field-error').textContent()).resolves.toBe('Must be at least 10 characters long.');
    await expect(page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    // A good one: the page says to check the mail (nothing is signed in yet) ...
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain(
      'Check your email. We sent a link to new@example.com',
    );
    await screenshot(page, 'sign-up-check-your-email');
    await expectAccessible(page, 'sign-up-check-your-email');
    // ... and the mailed link's page confirms it, signed in, on the keys page.
    await page.goto('/verify-email?token=tok_from_the_mail');
    await page.getByRole('button', { name: 'Confirm my email' }).click();
    await page.waitForURL(/\/keys$/);
    expect(api.requests.filter((r) => r.path === '/signup/verify').map((r) => r.body)).toEqual([{ token: 'tok_from_the_mail' }]);
    await page.unrouteAll();
  });

  it('API keys: list, create with scopes (key shown once, CSRF sent), revoke through a keyboard-operable dialog', async () => {
    const { page } = run.browser;
    api = await mockDashboardApi(page);
    await page.goto('/keys');
    await page.getByRole('cell', { name: 'backend (production)', exact: true }).waitFor();
    await screenshot(page, 'keys');
    await expectAccessible(page, 'keys');

    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.waitFor();
    await expect(dialog.getByLabel('Name').evaluate((element) => element.ownerDocument.activeElement === element)).resolves.toBe(
      true,
    );
    await dialog.getByLabel('Name').fill('ci runner');
    await dialog.getByLabel('Environment').selectOption('test');
    await dialog.getByRole('checkbox', { name: /rpc:write/ }).uncheck();
    await screenshot(page, 'keys-create-dialog');
    await expectAccessible(page, 'keys-create-dialog');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('shown only once').waitFor();
    await expect(page.getByLabel('Your new API key').inputValue()).resolves.toBe(
      'svc_test_N3w1xR8qY6mVb2Lk9Tz4Wc7Hd5Jf3Gs1Pa8Eu',
    );
    const created = api.requests.find((request) => request.method === 'POST' && request.path === '/keys');
    expect(created?.csrf).toBe(csrfToken);
    expect(created?.body).toEqual({
      name: 'ci runner',
      environment: 'test',
      scopes: ['rpc:read', 'data:read', 'wallets:manage', 'webhooks:manage', 'gas:manage', 'bundler:send'],
    });
    await screenshot(page, 'keys-created');

    // Revoke: the dialog traps Tab, Escape closes it and gives focus back.
    const revoke = page.getByRole('button', { name: 'Revoke indexer worker' });
    await revoke.click();
    const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
    await confirm.waitFor();
    for (let index = 0; index < 6; index++) await page.keyboard.press('Tab');
    await expect(confirm.evaluate((element) => element.contains(element.ownerDocument.activeElement))).resolves.toBe(true);
    await screenshot(page, 'keys-revoke-dialog');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await expect(revoke.evaluate((element) => element.ownerDocument.activeElement === element)).resolves.toBe(true);
    await revoke.click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(
      api.requests.some((request) => request.method === 'DELETE' && request.path === '/keys/key_2' && request.csrf === csrfToken),
    ).toBe(true);
    await page.unrouteAll();
  });

  it('usage: charts in SVG over 1 h / 24 h / 7 d, breakdowns by key and method, plan limits', async () => {
    const { page } = run.browser;
    api = await mockDashboardApi(page);
    await page.goto('/usage');
    await page.getByRole('cell', { name: 'eth_blockNumber' }).waitFor();
    await expect(page.locator('figure.chart svg').count()).resolves.toBe(3);
    await expect(page.getByRole('cell', { name: /backend \(production\)/ }).count()).resolves.toBe(1);
    await screenshot(page, 'usage');
    await expectAccessible(page, 'usage');
    await page.getByRole('button', { name: /7d/ }).click();
    await page.waitForFunction(`document.querySelector('button[aria-pressed="true"]')?.textContent?.startsWith('7d')`);
    const usageQueries = api.requests.filter((request) => request.path === '/v1/usage');
    expect(usageQueries.length).toBeGreaterThanOrEqual(4);
    await page.getByRole('button', { name: /1h/ }).click();
    await page.getByRole('cell', { name: 'eth_call' }).waitFor();
    await screenshot(page, 'usage-1h');
    await page.unrouteAll();
  });

  it('webhooks: list, a create form that follows the event type, field errors from the API, detail with delivery log', async () => {
    const { page } = run.browser;
    api = await mockDashboardApi(page);
    await page.goto('/webhooks');
    await page.getByRole('link', { name: 'https://hooks.acme.dev/blockyard' }).waitFor();
    await screenshot(page, 'webhooks');
    await expectAccessible(page, 'webhooks');

    await page.getByRole('link', { name: 'Create webhook' }).click();
    await page.getByRole('heading', { name: 'Create a webhook' }).waitFor();
    await page.getByLabel('Network').selectOption('devnet');
    // address_activity takes addresses (required), function selectors, min value, confirmations.
    await page.getByLabel(/^Addresses/).waitFor();
    await expect(page.getByLabel('Transaction hashes').count()).resolves.toBe(0);
    await page.getByLabel('Event type').selectOption('mined_transaction');
    await page.getByLabel(/^Transaction hashes/).waitFor();
    await expect(page.getByLabel(/^Addresses/).count()).resolves.toBe(0);
    await page.getByLabel('Event type').selectOption('log');
    await page.getByLabel('Topic 0').waitFor();
    await page.getByLabel('Event type').selectOption('token_transfer');
    await page.getByLabel('Endpoint URL').fill('https://hooks.acme.dev/new');
    await page.getByLabel(/^Addresses/).fill('0xnot-an-address');
    api.failNext(
      'POST',
      '/v1/webhooks',
      400,
      'invalid_request',
      "invalid parameter 'config.addresses[0]': must be a 0x address of 40 hex digits",
    );
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const addresses = page.locator('.field', { has: page.getByLabel(/^Addresses/) });
    await expect(addresses.locator('.field-error').textContent()).resolves.toBe(
      'Entry 1: must be a 0x address of 40 hex digits.',
    );
    await screenshot(page, 'webhook-new-field-error');
    await expectAccessible(page, 'webhook-new-field-error');
    await page.getByLabel(/^Addresses/).fill('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    await page.getByLabel('Confirmations').fill('2');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.waitForURL(/\/webhooks\/wh_new1$/);
    await expect(page.getByRole('textbox', { name: 'Signing secret' }).inputValue()).resolves.toMatch(/^whsec_/);
    const created = api.requests.findLast((request) => request.method === 'POST' && request.path === '/v1/webhooks');
    expect(created?.body).toMatchObject({
      url: 'https://hooks.acme.dev/new',
      chain: 'ethereum',
      network: 'devnet',
      event_type: 'token_transfer',
      config: { addresses: ['0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'], confirmations: 2 },
    });

    await page.goto('/webhooks/wh_3kd9');
    await page.getByRole('heading', { name: 'Delivery log' }).waitFor();
    await page.getByRole('button', { name: /Show the request and response of dlv_2/ }).click();
    await page.getByText('timed out after 15 s').waitFor();
    await screenshot(page, 'webhook-detail');
    await expectAccessible(page, 'webhook-detail');
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('Paused: events wait until you resume.').waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event evt_t1 queued').waitFor();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    await expect(page.getByRole('textbox', { name: 'Signing secret' }).inputValue()).resolves.toBe('whsec_cm90YXRlZHNlY3JldA==');
    expect(api.requests.filter((request) => request.method !== 'GET').every((request) => request.csrf === csrfToken)).toBe(true);

    // Another account's webhook: the API's 404, in words.
    await page.goto('/webhooks/wh_not_mine');
    await page.getByRole('heading', { name: 'Webhook not found' }).waitFor();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('no webhook wh_not_mine');
    await page.unrouteAll();
  });

  it('gas policies: list, a bad rule value shown at its field, detail with usage per day and per sender', async () => {
    const { page } = run.browser;
    api = await mockDashboardApi(page);
    await page.goto('/gas-policies');
    await page.getByRole('link', { name: 'Onboarding: first mint free' }).waitFor();
    await screenshot(page, 'gas-policies');
    await expectAccessible(page, 'gas-policies');

    await page.goto('/gas-policies/new');
    await page.getByLabel('Name').fill('Launch week');
    await page.getByLabel('Max gas, total (USD)').fill('lots');
    api.failNext(
      'POST',
      '/v1/gas/policies',
      400,
      'invalid_request',
      `invalid parameter 'rules.max_gas_usd': must be a USD amount greater than 0, as a decimal string such as "25.50"`,
    );
    await page.getByRole('button', { name: 'Create policy' }).click();
    const field = page.locator('.field', { has: page.getByLabel('Max gas, total (USD)') });
    await expect(field.locator('.field-error').textContent()).resolves.toMatch(/^Must be a USD amount greater than 0/);
    await screenshot(page, 'gas-policy-field-error');
    await expectAccessible(page, 'gas-policy-field-error');
    const sent = api.requests.find((request) => request.method === 'POST' && request.path === '/v1/gas/policies');
    expect(sent?.body).toMatchObject({ name: 'Launch week', rules: { max_gas_usd: 'lots' } });

    await page.goto('/gas-policies/gp_71x');
    await page.getByRole('cell', { name: '0x6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c' }).waitFor();
    await screenshot(page, 'gas-policy-detail');
    await expectAccessible(page, 'gas-policy-detail');
    await page.goto('/gas-policies/gp_71x/edit');
    await expect(page.getByLabel('Max gas per operation (USD)').inputValue()).resolves.toBe('0.5');
    await expect(page.getByLabel('Allowed methods').inputValue()).resolves.toBe('mint(address,uint256)');
    await screenshot(page, 'gas-policy-edit');
    await page.unrouteAll();
  });

  it('smart wallets, chains, members (invitation link shown once) and the operator view', async () => {
    const { page } = run.browser;
    api = await mockDashboardApi(page);
    await page.goto('/wallets');
    await page.getByRole('link', { name: '0x6f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c' }).click();
    await page.getByText('Deploy transaction').waitFor();
    await screenshot(page, 'wallet-detail');
    await page.goto('/wallets');
    await page.getByRole('heading', { name: 'Smart wallets' }).waitFor();
    await screenshot(page, 'wallets');
    await expectAccessible(page, 'wallets');

    await page.goto('/chains');
    await page.getByText('eth-mainnet.provider-a.example').waitFor();
    // Each upstream's condition, and the reason when it is not ok.
    const infura = page.getByRole('listitem').filter({ hasText: 'infura' });
    await expect(infura.textContent()).resolves.toMatch(/infura \(rpc\.provider-b\.example\) unreachable · fallback.*timeout/);
    await screenshot(page, 'chains');
    await expectAccessible(page, 'chains');

    await page.goto('/members');
    await page.getByRole('cell', { name: 'linus@example.com', exact: true }).waitFor();
    await page.getByLabel('Email').fill('new.member@example.com');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    await expect(page.getByLabel(/Invitation link for new.member@example.com/).inputValue()).resolves.toContain('/invite?token=');
    await screenshot(page, 'members');
    await expectAccessible(page, 'members');

    await page.goto('/operator');
    await page.getByRole('cell', { name: /^Acme Labs/ }).waitFor();
    await page.getByRole('button', { name: 'Edit Acme Labs' }).click();
    await page.getByRole('dialog', { name: 'Edit Acme Labs' }).waitFor();
    await screenshot(page, 'operator-edit-account');
    await expectAccessible(page, 'operator-edit-account');
    await page.keyboard.press('Escape');
    await screenshot(page, 'operator');
    await expectAccessible(page, 'operator');
    await page.unrouteAll();
  });

  it('collapses the navigation in a narrow window', async () => {
    const narrow = await openBrowser(run.service.url, { width: 390, height: 780 });
    try {
      await mockDashboardApi(narrow.page);
      await narrow.page.goto('/keys');
      await narrow.page.getByRole('cell', { name: 'backend (production)', exact: true }).waitFor();
      await expect(narrow.page.getByRole('link', { name: 'Usage' }).isVisible()).resolves.toBe(false);
      await screenshot(narrow.page, 'narrow-keys');
      await expectAccessible(narrow.page, 'narrow-keys');
      await narrow.page.getByRole('button', { name: 'Menu' }).click();
      await narrow.page.getByRole('link', { name: 'Usage' }).waitFor({ state: 'visible' });
      await screenshot(narrow.page, 'narrow-menu-open');
      await expectAccessible(narrow.page, 'narrow-menu-open');
      await narrow.page.getByRole('link', { name: 'Usage' }).click();
      await narrow.page.getByRole('heading', { name: 'Usage' }).waitFor();
      expect(narrow.problems).toEqual([]);
    } finally {
      await narrow.close();
    }
  });

  it('reported no console errors (CSP violations included) on any page', () => {
    expect(run.browser.problems).toEqual([]);
  });
});
