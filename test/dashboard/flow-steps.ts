// Steps of the dashboard flows a user takes in the browser, shared by the end-to-end tests.
import type { Page } from 'playwright-core';
import { type MailingService, mailedVerificationToken } from './support.ts';

/** Opens the verification link mailed to `email` (the service's .eml outbox) and confirms it: signed in, on the keys page. */
export async function followVerificationMail(page: Page, service: MailingService, email: string): Promise<void> {
  const token = await mailedVerificationToken(service, email);
  await page.goto(`/verify-email?token=${token}`);
  await page.getByRole('button', { name: 'Confirm my email' }).click();
  await page.waitForURL(/\/keys$/);
}

/**
 * Signs up through the sign-up page (open sign-up: a new account, its owner), sees "check your email",
 * follows the mailed link and lands on the keys page.
 */
export async function signUp(page: Page, service: MailingService, email: string): Promise<void> {
  await page.goto('/sign-up');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill('a long enough password');
  await page.getByLabel('Account name (optional)').fill(`${email.split('@')[0]}'s account`);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByText('Check your email.').waitFor();
  await followVerificationMail(page, service, email);
}

/** Creates a webhook on the new-webhook page; its detail page's URL id. */
export async function createWebhook(page: Page, url: string, eventType: string): Promise<string> {
  await page.goto('/webhooks/new');
  await page.getByLabel('Endpoint URL').fill(url);
  await page.getByLabel('Event type').selectOption(eventType);
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await page.waitForURL(/\/webhooks\/wh_/);
  return new URL(page.url()).pathname.split('/').pop()!;
}

/** Creates a test key in the dialog of the keys page; the key, shown once. */
export async function createKey(page: Page, name: string): Promise<string> {
  await page.goto('/keys');
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Create key' }).click();
  return page.getByRole('textbox', { name: 'Your new API key' }).inputValue();
}
