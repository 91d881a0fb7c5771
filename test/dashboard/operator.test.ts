import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBanner } from '../../src/cli/banner.ts';
import { devUserEmail } from '../../src/dashboard/dev-user.ts';
import { signInLinkPath } from '../../src/dashboard/sign-in-link.ts';
import { createUserStore } from '../../src/dashboard/user-store.ts';
import { createUserTokenStore } from '../../src/dashboard/user-token-store.ts';
import { cliEnv, runCli, stopAllCli } from '../support/cli.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { dashboardClient, signedUpClient } from './support.ts';

describe('dashboard operator view, admin users and the development sign-in link', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(async () => {
    await stopAllCli();
    await t?.stop();
  });

  /** The dev user signed in by a new one-time link (the banner's works once). */
  async function devClient() {
    const client = dashboardClient(t.url);
    const devUser = await createUserStore(t.database.db).findByEmail(devUserEmail);
    const token = await createUserTokenStore(t.database.db).create(devUser!.id, 'sign_in', 60_000);
    const link = await client.call('GET', signInLinkPath(token));
    expect(link.status).toBe(303);
    expect(link.headers.get('location')).toBe('/');
    expect((await client.api('GET', '/session')).status).toBe(200);
    return client;
  }

  it('signs the dev user in once by the banner link: an operator owning the dev key’s account', async () => {
    expect(t.service.devSignInUrl).toMatch(new RegExp(`^${t.url}/dashboard/sign-in/\\w+$`));
    expect(formatBanner(t.service)).toContain(`Dashboard:      ${t.url}/ (sign in: ${t.service.devSignInUrl})`);

    const client = dashboardClient(t.url);
    const path = new URL(t.service.devSignInUrl!).pathname;
    const first = await client.call('GET', path);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    expect(first.headers.getSetCookie().join()).toMatch(/blockyard_session=\w+; Path=\/; HttpOnly; SameSite=Lax/);
    const session = await client.api('GET', '/session');
    expect(session.body.user).toMatchObject({ email: 'dev@blockyard.local', operator: true });
    expect(session.body.account).toMatchObject({ name: 'dev', role: 'owner', plan: 'growth' });
    const devKeyAccount = await fetch(`${t.url}/v1/webhooks`, { headers: { 'x-api-key': t.service.devKey!.key } });
    expect(devKeyAccount.status).toBe(200);
    const keys = await client.api('GET', '/keys');
    expect(keys.body.keys.some((k: { prefix: string }) => t.service.devKey!.key.startsWith(k.prefix))).toBe(true);

    const second = await dashboardClient(t.url).call('GET', path);
    expect(second.status).toBe(303);
    expect(second.headers.get('location')).toBe('/sign-in?link=expired');
    expect(second.headers.getSetCookie()).toEqual([]);
    expect((await dashboardClient(t.url).call('GET', '/dashboard/sign-in/unknowntoken')).headers.get('location')).toBe(
      '/sign-in?link=expired',
    );
  });

  it('lets an operator use the admin routes on a session (with CSRF), and refuses everyone else with 403', async () => {
    const operator = await devClient();
    const { client: customer, session } = await signedUpClient(t, 'customer@example.com');

    const accounts = await operator.api('GET', '/admin/accounts?limit=100');
    expect(accounts.status).toBe(200);
    expect(accounts.body.accounts.map((a: { id: string }) => a.id)).toContain(session.account.id);
    expect((await operator.api('GET', '/admin/webhooks')).status).toBe(200);

    const path = `/admin/accounts/${session.account.id}`;
    const noCsrf = await operator.api('PATCH', path, { plan: 'growth' }, { csrf: false });
    expect(noCsrf.status).toBe(403);
    const changed = await operator.api('PATCH', path, { plan: 'growth', limits: { rps: 50, rpd: null } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ plan: 'growth', limits: { rps: 50, rpd: null, cups: 2000 } });
    expect((await customer.api('GET', '/session')).body.account).toMatchObject({ plan: 'growth', limits: { rps: 50 } });

    for (const [method, target, body] of [
      ['GET', '/admin/accounts', undefined],
      ['GET', '/admin/webhooks', undefined],
      ['PATCH', path, { plan: 'enterprise' }],
    ] as const) {
      const refused = await customer.api(method, target, body);
      expect(refused.status, `${method} ${target}`).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
    }
    expect((await t.admin('GET', path)).body.plan).toBe('growth');
    // The admin token is not what the dashboard's copies take.
    const withToken = await fetch(`${t.url}/dashboard/api/admin/accounts`, {
      headers: { authorization: `Bearer ${t.adminToken}` },
    });
    expect(withToken.status).toBe(401);
  });

  it('PATCH /admin/accounts/:id takes plan, limits and email; {} is refused', async () => {
    const account = await t.admin('POST', '/admin/accounts', { name: 'patched', plan: 'free' });
    const path = `/admin/accounts/${account.body.id}`;
    expect((await t.admin('PATCH', path, { email: 'ops@example.com' })).body).toMatchObject({
      email: 'ops@example.com',
      plan: 'free',
    });
    const limited = await t.admin('PATCH', path, { limits: { cups: 5 } });
    expect(limited.body).toMatchObject({ email: 'ops@example.com', limits: { rps: 10, cups: 5 } });
    expect((await t.admin('PATCH', path, { limits: {} })).body.limits.cups).toBe(200);
    expect((await t.admin('PATCH', path, {})).status).toBe(400);
    expect((await t.admin('PATCH', path, { plan: 'gold' })).status).toBe(400);
    expect((await t.admin('PATCH', '/admin/accounts/acc_none', { plan: 'growth' })).status).toBe(404);
  });

  it('makes operators with the admin API; the session gets the admin view at once', async () => {
    const { client } = await signedUpClient(t, 'newop@example.com');
    expect((await client.api('GET', '/admin/accounts')).status).toBe(403);
    const made = await t.admin('POST', '/admin/users', { email: 'NewOp@example.com', operator: true });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ email: 'newop@example.com', operator: true });
    expect((await client.api('GET', '/admin/accounts')).status).toBe(200);
    expect((await client.api('GET', '/session')).body.user.operator).toBe(true);

    const fresh = await t.admin('POST', '/admin/users', { email: 'fresh@example.com' });
    expect(fresh.status).toBe(201);
    expect(fresh.body).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: 'fresh@example.com',
      operator: false,
      created_at: expect.any(String),
    });
    const list = await t.admin('GET', '/admin/users?limit=100');
    expect(list.body.users.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining(['dev@blockyard.local', 'fresh@example.com']),
    );

    const demoted = await t.admin('PATCH', `/admin/users/${made.body.id}`, { operator: false });
    expect(demoted.body.operator).toBe(false);
    expect((await client.api('GET', '/admin/accounts')).status).toBe(403);
    expect((await t.admin('PATCH', '/admin/users/usr_none', { operator: true })).status).toBe(404);
    expect((await fetch(`${t.url}/admin/users`)).status).toBe(401);
  });

  it('blockyard users add-operator EMAIL makes an operator through the running server', async () => {
    const result = await runCli(['users', 'add-operator', 'cli-op@example.com', '--url', t.url, '--admin-token', t.adminToken], {
      env: cliEnv(),
      cwd: t.dataDir,
      timeoutMs: 45_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ email: 'cli-op@example.com', operator: true });
  });
});
