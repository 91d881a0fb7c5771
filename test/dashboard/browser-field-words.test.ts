// The dashboard's forms, refused by the real service: each field says what is wrong in words a person
// would write ("Give the policy a name."), never the validator's ("Must NOT have fewer than 1 characters").
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { skipWithout } from '../support/requirements.ts';
import { browserOnService, chromiumBrowser, screenshot } from './browser-support.ts';
import { signUp } from './flow-steps.ts';

const validatorWording = /must NOT|must be equal to|must match|must have required|fewer than|[<>]=/i;

/** The message shown under the field labelled `label` (inside `within`, the page by default). */
async function fieldError(page: Page, label: string, within?: Locator): Promise<string | null> {
  const scope = within ?? page;
  const field = scope.locator('.field', { has: page.getByLabel(label, { exact: true }) });
  await field.locator('.field-error').waitFor();
  return field.locator('.field-error').textContent();
}

async function expectNoValidatorWords(page: Page): Promise<void> {
  await expect(page.locator('body').textContent()).resolves.not.toMatch(validatorWording);
}

describe('dashboard field messages, from the real service', () => {
  skipWithout(chromiumBrowser);
  const run = browserOnService();

  it('sign-in and sign-up: an empty email, a bad email, a short password', async () => {
    const { page } = run.browser;
    await page.goto('/sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(fieldError(page, 'Email')).resolves.toBe('Enter an email address.');
    await expectNoValidatorWords(page);

    await page.goto('/sign-up');
    await page.getByLabel('Email').fill('not an email');
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(fieldError(page, 'Email')).resolves.toBe('Must be an email address, like you@example.com.');
    await page.getByLabel('Email').fill('words@example.com');
    await page.getByLabel('Password', { exact: true }).fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Must be at least 10 characters long.').waitFor();
    await expect(fieldError(page, 'Password')).resolves.toBe('Must be at least 10 characters long.');
    await expectNoValidatorWords(page);
  }, 60_000);

  it('a gas policy, a key and a webhook left without a name or URL', async () => {
    const { page } = run.browser;
    await signUp(page, run.service, 'words-forms@example.com');

    await page.goto('/gas-policies/new');
    await page.getByRole('button', { name: 'Create policy' }).click();
    await expect(fieldError(page, 'Name')).resolves.toBe('Give the policy a name.');
    await expect(page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await expectNoValidatorWords(page);
    await screenshot(page, 'policy-without-a-name');

    await page.goto('/keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create an API key' });
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expect(fieldError(page, 'Name', dialog)).resolves.toBe('Give the key a name.');
    await expectNoValidatorWords(page);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.goto('/webhooks/new');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect(fieldError(page, 'Endpoint URL')).resolves.toBe('Give the URL the events are sent to.');
    await expectNoValidatorWords(page);
  }, 90_000);
});
