// The API key page (issue 24) in a real browser against the real back end: restrictions edited with
// the API's 400 shown at its field, a rotation that shows the new key once and the old one's expiry,
// and the key's events.
import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../support/requirements.ts';
import { seriousAccessibilityProblems } from './accessibility.ts';
import { browserOnService, chromiumBrowser, screenshot } from './browser-support.ts';
import { createKey, signUp } from './flow-steps.ts';

const flow = (name: string, body: () => Promise<void>) => it(name, body, 90_000);
const origin = 'https://app.example.com';

async function expectAccessible(page: Page, name: string): Promise<void> {
  expect(await seriousAccessibilityProblems(page), `accessibility of ${name}`).toEqual([]);
}

/** The message shown next to the field labelled `label`. */
const fieldError = (page: Page, label: string) =>
  page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.field-error');

describe('the API key page against the real back end', () => {
  skipWithout(chromiumBrowser);
  const run = browserOnService();

  /** eth_blockNumber with `key` from an allowed origin (the page's restrictions): the HTTP status. */
  const call = async (key: string) =>
    (await run.service.rpc(key, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }, undefined, { origin })).status;

  flow(
    'restrict a key (a bad CIDR shown at its field), rotate it (new key once, old one’s expiry), see its events, revoke it',
    async () => {
      const { page } = run.browser;
      await signUp(page, run.service, 'keys@example.com');
      const oldKey = await createKey(page, 'frontend');
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await page.getByRole('link', { name: 'frontend', exact: true }).click();
      await page.waitForURL(/\/keys\/[^/]+$/);
      await page.getByRole('heading', { name: 'frontend', level: 1 }).waitFor();
      await page.getByRole('cell', { name: 'Created' }).waitFor();
      await expectAccessible(page, 'key page');

      // A bad CIDR on the second line typed (after a blank one): refused, and said next to the IP field.
      await page.getByRole('button', { name: 'Edit', exact: true }).click();
      await page.getByLabel('Allowed origins').fill(origin);
      await page.getByLabel('Allowed IP addresses').fill('203.0.113.0/24\n\n10.0.0.0/33');
      await page.getByLabel('Requests per second').fill('50');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await expect(fieldError(page, 'Allowed IP addresses').textContent()).resolves.toBe(
        "Line 3: '10.0.0.0/33' is not a CIDR range: the prefix length must be 0 to 32.",
      );
      await expect(page.getByLabel('Allowed IP addresses').getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(
        page.getByLabel('Allowed IP addresses').evaluate((field) => field.ownerDocument.activeElement === field),
      ).resolves.toBe(true);
      await expect(fieldError(page, 'Allowed origins').count()).resolves.toBe(0);
      await screenshot(page, 'key-page-field-error');
      await expectAccessible(page, 'key page, a field refused');

      await page.getByLabel('Allowed IP addresses').fill('203.0.113.0/24\n127.0.0.1');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Saved.').waitFor();
      await page.getByRole('definition').filter({ hasText: '127.0.0.1' }).waitFor();
      await expect(page.getByRole('definition').filter({ hasText: origin }).count()).resolves.toBe(1);
      expect(await call(oldKey)).toBe(200);
      // What the page set is what the run.service enforces.
      const elsewhere = await run.service.rpc(
        oldKey,
        { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
        undefined,
        {
          origin: 'https://evil.example',
        },
      );
      expect(elsewhere.status).toBe(403);
      await expect(elsewhere.json()).resolves.toMatchObject({
        error: {
          code: 'forbidden',
          message: "refused by this API key's restrictions.origins: the origin 'https://evil.example' is not listed",
        },
      });

      // Rotate with the default grace: the new key once, and when the old one stops working.
      await page.getByRole('button', { name: 'Rotate', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate this key?' });
      await expect(dialog.getByLabel('The current key stops working').inputValue()).resolves.toBe('86400');
      await expectAccessible(page, 'rotate dialog');
      await dialog.getByRole('button', { name: 'Rotate key' }).click();
      await dialog.waitFor({ state: 'detached' });
      const newKey = await page.getByRole('textbox', { name: 'Your new API key' }).inputValue();
      expect(newKey).toMatch(/^svc_test_/);
      expect(newKey).not.toBe(oldKey);
      await page.getByText('you will not see it again').waitFor();
      await expect(page.locator('.key-rotated-expiry').textContent()).resolves.toMatch(
        /^The previous key keeps working until .+ \(in 24 h\), then it is refused\.$/,
      );
      await page.getByRole('button', { name: 'Copy', exact: true }).waitFor();
      // Both work during the grace.
      expect(await call(newKey)).toBe(200);
      expect(await call(oldKey)).toBe(200);

      // The events: create, restrict, rotate, newest first, by this user.
      const rows = page.locator('section.card', { has: page.getByRole('heading', { name: 'Events' }) }).locator('tbody tr');
      for (const deadline = Date.now() + 10_000; (await rows.count()) < 3; ) {
        if (Date.now() > deadline) throw new Error('the rotation never showed in the events');
        await page.waitForTimeout(200);
      }
      const actions = await rows.locator('td:nth-child(2)').allTextContents();
      expect(actions).toEqual(['Rotated', 'Changed', 'Created']);
      const who = await rows.locator('td:nth-child(3)').allTextContents();
      expect(new Set(who)).toEqual(new Set(['You (keys@example.com)']));
      const details = await rows.locator('td:nth-child(4)').allTextContents();
      expect(details[0]).toMatch(/^new key svc_test_\w+…; the previous key works until .+ \(24 hours’ grace\)$/);
      expect(details[1]).toBe(`origins: added ${origin}; IP addresses: added 203.0.113.0/24, 127.0.0.1; limits 50 requests/s`);
      await screenshot(page, 'key-page-rotated');
      await expectAccessible(page, 'key page after a rotation');

      // Once dismissed (or on another visit), the secret is gone and the pending expiry stays.
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await page.reload();
      await page.getByRole('heading', { name: 'frontend', level: 1 }).waitFor();
      await page.getByText(/Rotated: the previous key still works until .+ \(in 24 h\)/).waitFor();
      expect(await page.content()).not.toContain(newKey);
      await page.getByRole('cell', { name: 'Rotated' }).waitFor();
      await screenshot(page, 'key-page');

      // Revoked from its page: both secrets refused, the page read-only, the event listed.
      await page.getByRole('button', { name: 'Revoke', exact: true }).click();
      const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
      await confirm.getByText('its previous secret’s too').waitFor();
      await confirm.getByRole('button', { name: 'Revoke key' }).click();
      await confirm.waitFor({ state: 'detached' });
      await page.getByRole('cell', { name: 'Revoked' }).waitFor();
      await expect(page.getByRole('button', { name: 'Rotate', exact: true }).count()).resolves.toBe(0);
      expect(await call(newKey)).toBe(401);
      expect(await call(oldKey)).toBe(401);

      // Another account's key (or none) in the URL: not found.
      const other = await run.service.createKey();
      await page.goto(`/keys/${other.keyId}`);
      await page.getByRole('heading', { name: 'API key not found' }).waitFor();
      expect(await call(other.key)).toBe(200);
    },
  );

  flow('signed requests: a PEM that does not parse is refused at its field; a real public key is saved and listed', async () => {
    const { page } = run.browser;
    await createKey(page, 'signed');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('link', { name: 'signed', exact: true }).click();
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByLabel(/^Require Authorization: Bearer/).check();
    await page.getByRole('button', { name: 'Add a public key' }).click();
    await page.getByLabel('Public key 1: id (kid)').fill('ci-2026');
    await page.getByLabel('Public key 1: algorithm').selectOption('ES256');
    await page.getByLabel('Public key 1: PEM').fill('-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(fieldError(page, 'Public key 1: PEM').textContent()).resolves.toBe(
      'Does not parse as an SPKI public key (-----BEGIN PUBLIC KEY-----) for ES256.',
    );

    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    await page.getByLabel('Public key 1: PEM').fill(pem);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByText('ci-2026', { exact: true }).click();
    await expect(page.locator('pre.code').textContent()).resolves.toBe(pem.trim());
    await expect(page.getByRole('definition').filter({ hasText: 'required' }).count()).resolves.toBe(1);
    await screenshot(page, 'key-page-signed-requests');
    await expectAccessible(page, 'key page with a public key');
  });

  flow('reported no console errors', async () => {
    expect(run.browser.problems).toEqual([]);
  });
});
