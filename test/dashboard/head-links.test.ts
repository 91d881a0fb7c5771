import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devUserEmail } from '../../src/dashboard/dev-user.ts';
import { signInLinkPath } from '../../src/dashboard/sign-in-link.ts';
import { createUserStore } from '../../src/dashboard/user-store.ts';
import { createUserTokenStore } from '../../src/dashboard/user-token-store.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { dashboardClient, mailedVerificationToken, signedUpClient, waitForMail } from './support.ts';

/**
 * Link previews (chat apps, mail scanners) and `curl -I` send HEAD: a one-time link must still work
 * after one. The sign-in link is the one link a GET uses up; invitation, password-reset and
 * email-verification links open a page whose form (a POST) uses them.
 */
describe('HEAD on a one-time link does not use it up', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  const head = (path: string) =>
    fetch(`${t.url}${path}`, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(10_000) });

  it('the sign-in link: HEAD answers its redirect without a session, twice; the GET then signs in once', async () => {
    const devUser = await createUserStore(t.database.db).findByEmail(devUserEmail);
    const path = signInLinkPath(await createUserTokenStore(t.database.db).create(devUser!.id, 'sign_in', 60_000));
    for (let preview = 0; preview < 2; preview++) {
      const answer = await head(path);
      expect([answer.status, answer.headers.get('location'), answer.headers.getSetCookie()]).toEqual([303, '/', []]);
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    const client = dashboardClient(t.url);
    const signIn = await client.call('GET', path);
    expect([signIn.status, signIn.headers.get('location')]).toEqual([303, '/']);
    expect((await client.api('GET', '/session')).status).toBe(200);
    // Used: HEAD says so too, as GET would.
    expect((await head(path)).headers.get('location')).toBe('/sign-in?link=expired');
    expect((await head('/dashboard/sign-in/unknowntoken')).headers.get('location')).toBe('/sign-in?link=expired');
  });

  it('email verification, password reset and invitation links still work after a HEAD', async () => {
    const signup = dashboardClient(t.url);
    await signup.api('POST', '/signup', { email: 'heidi@example.com', password: 'correct horse battery', account_name: 'h' });
    const verifyToken = await mailedVerificationToken(t, 'heidi@example.com');
    expect((await head(`/verify-email?token=${verifyToken}`)).status).toBe(200);
    expect((await signup.api('POST', '/signup/verify', { token: verifyToken })).status).toBe(200);

    const anonymous = dashboardClient(t.url);
    expect((await anonymous.api('POST', '/password-reset', { email: 'heidi@example.com' })).status).toBe(202);
    const mail = await waitForMail(join(t.dataDir, 'outbox'), 'To: heidi@example.com', 5000, (text) =>
      text.includes('/reset-password?token='),
    );
    const resetToken = /\/reset-password\?token=(\w+)/.exec(mail)![1]!;
    expect((await head(`/reset-password?token=${resetToken}`)).status).toBe(200);
    const reset = await anonymous.api('POST', '/password-reset/confirm', { token: resetToken, password: 'a new long password' });
    expect(reset.status).toBeLessThan(300);

    const { client: owner } = await signedUpClient(t, 'ivan@example.com');
    const invited = await owner.api('POST', '/invitations', { email: 'judith@example.com', role: 'member' });
    expect(invited.status).toBe(201);
    const link = new URL(invited.body.link as string);
    expect((await head(`${link.pathname}${link.search}`)).status).toBe(200);
    expect((await owner.api('GET', '/invitations')).body.invitations).toHaveLength(1);
  });
});
