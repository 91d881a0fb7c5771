// Sign-up by mailed link, through a real SMTP server: the same answer for a known and an unknown email,
// and the limits on sign-ups and password-reset requests per email and per client address.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailRequestLimits } from '../../src/dashboard/mail-request-limits.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { dashboardClient } from './support.ts';

interface Mail {
  to: string[];
  text: string;
}

describe('dashboard sign-up by mailed link', () => {
  let smtp: SMTPServer;
  const mails: Mail[] = [];
  let t: TestService;

  beforeAll(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => {
          raw += chunk.toString('utf8');
        });
        stream.on('end', () => {
          const text = raw
            .replace(/=\r?\n/g, '')
            .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
          mails.push({ to: (session.envelope.rcptTo || []).map((rcpt) => rcpt.address), text });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const port = (smtp.server.address() as AddressInfo).port;
    t = await startTestService({
      settings: { email: { smtp_url: `smtp://127.0.0.1:${port}`, from: 'Blockyard <noreply@blockyard.test>' } },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
  });

  async function mailTo(address: string, needle: string, timeoutMs = 5000): Promise<Mail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = mails.find((mail) => mail.to.includes(address) && mail.text.includes(needle));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail to ${address} containing ${needle}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  const tokenIn = (mail: Mail) => /\/verify-email\?token=(\w+)/.exec(mail.text)?.[1];

  it('answers a known and an unknown email the same; the new one gets the link that completes it, the known one a notice', async () => {
    const first = dashboardClient(t.url, { from: '127.0.2.1' });
    expect((await first.api('POST', '/signup', { email: 'known@example.com', password: 'the first password' })).status).toBe(202);
    const firstToken = tokenIn(await mailTo('known@example.com', '/verify-email?token='))!;
    expect((await first.api('POST', '/signup/verify', { token: firstToken })).status).toBe(200);

    const answers = [];
    for (const email of ['known@example.com', 'unknown@example.com']) {
      const client = dashboardClient(t.url, { from: '127.0.2.2' });
      const answer = await client.api('POST', '/signup', { email, password: 'an attackers password' });
      answers.push({ status: answer.status, body: answer.body, cookie: answer.headers.getSetCookie(), email });
    }
    expect(answers).toEqual([
      { status: 202, body: { email: 'known@example.com' }, cookie: [], email: 'known@example.com' },
      { status: 202, body: { email: 'unknown@example.com' }, cookie: [], email: 'unknown@example.com' },
    ]);

    const notice = await mailTo('known@example.com', 'already has one');
    expect(notice.text).toContain(`${t.url}/sign-in`);
    expect(notice.text).toContain(`${t.url}/forgot-password`);
    expect(notice.text).not.toContain('/verify-email');
    expect(mails.filter((mail) => mail.to.includes('known@example.com') && mail.text.includes('/verify-email'))).toHaveLength(1);
    // The known user is untouched: the old password still signs in, the attacker's does not.
    const signIn = (password: string) =>
      dashboardClient(t.url, { from: '127.0.2.3' }).api('POST', '/session', { email: 'known@example.com', password });
    expect((await signIn('an attackers password')).status).toBe(401);
    expect((await signIn('the first password')).status).toBe(200);

    // The new address's link completes the sign-up, once.
    const token = tokenIn(await mailTo('unknown@example.com', '/verify-email?token='))!;
    const landing = dashboardClient(t.url, { from: '127.0.2.4' });
    const verified = await landing.api('POST', '/signup/verify', { token });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ user: { email: 'unknown@example.com' }, account: { plan: 'free', role: 'owner' } });
    expect((await landing.api('GET', '/session')).status).toBe(200);
    for (const again of [token, 'no-such-token']) {
      const refused = await dashboardClient(t.url).api('POST', '/signup/verify', { token: again });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(refused.body.error.message).toContain("'token'");
    }
  });

  it('limits sign-ups per email and per client address (429 with Retry-After), the same for any email', async () => {
    for (let i = 0; i < mailRequestLimits.perEmail; i++) {
      const client = dashboardClient(t.url, { from: `127.0.3.${i + 1}` });
      expect((await client.api('POST', '/signup', { email: 'flooded@example.com', password: 'some password' })).status).toBe(202);
    }
    const refused = await dashboardClient(t.url, { from: '127.0.3.99' }).api('POST', '/signup', {
      email: 'flooded@example.com',
      password: 'some password',
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);

    const sprayer = dashboardClient(t.url, { from: '127.0.4.1' });
    for (let i = 0; i < mailRequestLimits.perIp; i++) {
      expect((await sprayer.api('POST', '/signup', { email: `spray${i}@example.com`, password: 'some password' })).status).toBe(
        202,
      );
    }
    const sprayed = await sprayer.api('POST', '/signup', { email: 'spray-last@example.com', password: 'some password' });
    expect(sprayed.status).toBe(429);
    expect(Number(sprayed.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not held back by this one.
    const other = dashboardClient(t.url, { from: '127.0.4.2' });
    expect((await other.api('POST', '/signup', { email: 'spray-last@example.com', password: 'some password' })).status).toBe(202);
  });

  it('limits password-reset requests per email and per client address, for known and unknown emails alike', async () => {
    for (const email of ['known@example.com', 'nobody-at-all@example.com']) {
      const statuses: number[] = [];
      for (let i = 0; i <= mailRequestLimits.perEmail; i++) {
        const client = dashboardClient(t.url, { from: `127.0.5.${i + 1}` });
        statuses.push((await client.api('POST', '/password-reset', { email })).status);
      }
      expect(statuses).toEqual([...Array(mailRequestLimits.perEmail).fill(202), 429]);
    }
    const sprayer = dashboardClient(t.url, { from: '127.0.6.1' });
    const statuses: number[] = [];
    for (let i = 0; i <= mailRequestLimits.perIp; i++) {
      statuses.push((await sprayer.api('POST', '/password-reset', { email: `reset${i}@example.com` })).status);
    }
    expect(statuses).toEqual([...Array(mailRequestLimits.perIp).fill(202), 429]);
  });
});
