import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { dashboardClient, mailedVerificationToken, signedUpClient } from './support.ts';

describe('dashboard sessions, sign-in and keys', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  it('signs up through the mailed link, keeps the session in an HttpOnly cookie, and answers the Session', async () => {
    const client = dashboardClient(t.url);
    const started = await client.api('POST', '/signup', {
      email: 'Alice@Example.com',
      password: 'correct horse battery',
      account_name: 'Alice Co',
    });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ email: 'alice@example.com' });
    expect(started.headers.getSetCookie()).toEqual([]);
    const answer = await client.api('POST', '/signup/verify', { token: await mailedVerificationToken(t, 'alice@example.com') });
    expect(answer.status).toBe(200);
    const setCookie = answer.headers.getSetCookie().join('\n');
    expect(setCookie).toMatch(/blockyard_session=\w+; Path=\/; HttpOnly; SameSite=Lax/);
    expect(setCookie).not.toMatch(/Secure/);
    expect(answer.body).toEqual({
      user: { id: expect.stringMatching(/^usr_/), email: 'alice@example.com', operator: false },
      account: {
        id: expect.stringMatching(/^acc_/),
        name: 'Alice Co',
        plan: 'free',
        role: 'owner',
        limits: { rps: 10, rpd: 100000, cups: 200, webhook_deliveries_per_day: 1000 },
      },
      accounts: [{ id: answer.body.account.id, name: 'Alice Co', role: 'owner' }],
      csrf_token: expect.any(String),
    });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');

    const session = await client.api('GET', '/session');
    expect(session.status).toBe(200);
    expect(session.body.user.email).toBe('alice@example.com');

    // A known email: the same answer (the mail says someone tried; no second user).
    const again = await dashboardClient(t.url).api('POST', '/signup', {
      email: 'alice@example.com',
      password: 'another password',
    });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ email: 'alice@example.com' });
  });

  it('refuses a short password naming it, and a request without a session with 401 in the error format', async () => {
    const client = dashboardClient(t.url);
    const short = await client.api('POST', '/signup', { email: 'short@example.com', password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toContain('password');
    const none = await client.api('GET', '/session');
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(none.headers.get('cache-control')).toBe('no-store');
    const unrouted = await client.api('GET', '/no-such-thing');
    expect(unrouted.status).toBe(404);
    expect(unrouted.headers.get('cache-control')).toBe('no-store');
  });

  it('signs in with the right password, 401 with a wrong one, and signs out', async () => {
    await signedUpClient(t, 'bob@example.com', 'bobs password 1');
    const client = dashboardClient(t.url);
    const wrong = await client.api('POST', '/session', { email: 'bob@example.com', password: 'not his password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toBe('email or password is wrong');
    const unknown = await client.api('POST', '/session', { email: 'nobody@example.com', password: 'whatever password' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error.message).toBe('email or password is wrong');

    const right = await client.api('POST', '/session', { email: 'BOB@example.com', password: 'bobs password 1' });
    expect(right.status).toBe(200);
    expect(right.body.user.email).toBe('bob@example.com');
    expect((await client.api('GET', '/session')).status).toBe(200);

    const out = await client.api('DELETE', '/session');
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().join()).toMatch(/blockyard_session=; .*Max-Age=0/);
    expect(client.cookie).toBeUndefined();
    expect((await client.api('GET', '/session')).status).toBe(401);
  });

  it('an attacker failing on an email is stopped after 10 from their address; the user still signs in from theirs', async () => {
    await signedUpClient(t, 'carol@example.com', 'carols password');
    const attacker = dashboardClient(t.url, { from: '127.0.0.2' });
    for (let i = 0; i < 10; i++) {
      const failed = await attacker.api('POST', '/session', { email: 'carol@example.com', password: `guess number ${i}` });
      expect(failed.status).toBe(401);
    }
    // Even the right password from the attacker's address now waits.
    const limited = await attacker.api('POST', '/session', { email: 'carol@example.com', password: 'carols password' });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);

    const carol = dashboardClient(t.url, { from: '127.0.0.3' });
    const signedIn = await carol.api('POST', '/session', { email: 'carol@example.com', password: 'carols password' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.email).toBe('carol@example.com');
    // Her sign-in forgave nothing of the attacker's.
    expect((await attacker.api('POST', '/session', { email: 'carol@example.com', password: 'carols password' })).status).toBe(
      429,
    );
  });

  it('many addresses failing on one email: past 100, the addresses that failed wait, a clean one still signs in', async () => {
    await signedUpClient(t, 'gail@example.com', 'gails password');
    const attackers = Array.from({ length: 12 }, (_, i) => dashboardClient(t.url, { from: `127.0.1.${i + 1}` }));
    // 9 failures each from 11 addresses (under the 10 per address and email; written as the sign-in route
    // writes them, which is quicker than 99 password checks), then one more through the API: 100 on the email.
    const failedAt = new Date();
    await t.database.db
      .insertInto('sign_in_failures')
      .values(
        Array.from({ length: 99 }, (_, i) => ({ email: 'gail@example.com', ip: `127.0.1.${(i % 11) + 1}`, failed_at: failedAt })),
      )
      .execute();
    expect((await attackers[11]!.api('POST', '/session', { email: 'gail@example.com', password: 'one more' })).status).toBe(401);

    for (const attacker of [attackers[0]!, attackers[11]!]) {
      const refused = await attacker.api('POST', '/session', { email: 'gail@example.com', password: 'gails password' });
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toContain('a password-reset link signs in');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const gail = dashboardClient(t.url, { from: '127.0.0.4' });
    expect((await gail.api('POST', '/session', { email: 'gail@example.com', password: 'gails password' })).status).toBe(200);
    // A clean address still gets its own guesses checked (a wrong one is 401, not 429).
    const fresh = dashboardClient(t.url, { from: '127.0.0.5' });
    expect((await fresh.api('POST', '/session', { email: 'gail@example.com', password: 'a wrong one' })).status).toBe(401);
  });

  it('refuses a state change without the CSRF token, with a wrong one, or from another origin, and changes nothing', async () => {
    const { client } = await signedUpClient(t, 'dave@example.com');
    const keyBody = { name: 'ci', environment: 'test' };
    const missing = await client.api('POST', '/keys', keyBody, { csrf: false });
    expect(missing.status).toBe(403);
    expect(missing.body.error).toMatchObject({ code: 'forbidden', message: 'CSRF token missing or wrong' });
    expect((await client.api('POST', '/keys', keyBody, { csrf: 'not-the-token' })).status).toBe(403);
    const foreign = await client.api('POST', '/keys', keyBody, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const signOut = await client.api('DELETE', '/session', undefined, { csrf: false });
    expect(signOut.status).toBe(403);
    expect((await client.api('GET', '/keys')).body.keys).toEqual([]);
    expect((await client.api('GET', '/session')).status).toBe(200);

    const sameOrigin = await client.api('POST', '/keys', keyBody, { headers: { origin: t.url } });
    expect(sameOrigin.status).toBe(201);
  });

  it('creates a key that works on /v1 exactly like an admin-created one, lists it without the key, and revokes it', async () => {
    const { client, session } = await signedUpClient(t, 'erin@example.com');
    const created = await client.api('POST', '/keys', { name: 'backend', environment: 'test', scopes: ['rpc:read'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      account_id: session.account.id,
      name: 'backend',
      environment: 'test',
      scopes: ['rpc:read'],
      revoked_at: null,
      key: expect.stringMatching(/^svc_test_/),
    });
    const { key } = created.body;

    const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };
    const viaDashboardKey = await t.rpc(key, call);
    expect(viaDashboardKey.status).toBe(200);
    expect(await viaDashboardKey.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    // The account's free plan shows in the limit headers, as for any key of the account.
    expect(viaDashboardKey.headers.get('x-ratelimit-limit')).toBe('10');
    // The scopes hold: no rpc:write.
    const send = await t.rpc(key, { jsonrpc: '2.0', id: 2, method: 'eth_sendRawTransaction', params: ['0x00'] });
    expect(send.status).toBe(403);

    const admin = await t.admin('GET', `/admin/accounts/${session.account.id}/keys`);
    expect(admin.body.keys).toHaveLength(1);
    const { key: _shownOnce, ...info } = created.body;
    expect(admin.body.keys[0]).toEqual(info);

    // The key was used: once its usage is written (every 5 s, or now), the list says when, to the minute.
    await t.service.usage?.flushNow();
    const list = await client.api('GET', '/keys');
    expect(list.body.keys).toEqual([{ ...info, last_used_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/) }]);
    expect(Date.now() - Date.parse(list.body.keys[0].last_used_at)).toBeLessThan(120_000);
    expect(JSON.stringify(list.body)).not.toContain(key);

    const revoked = await client.api('DELETE', `/keys/${info.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).not.toBeNull();
    expect((await t.rpc(key, call)).status).toBe(401);
  });

  it("answers 404 for another account's key and leaves it working", async () => {
    const owner = await signedUpClient(t, 'frank@example.com');
    const other = await signedUpClient(t, 'grace@example.com');
    const created = await owner.client.api('POST', '/keys', { name: 'mine', environment: 'test' });
    const stolen = await other.client.api('DELETE', `/keys/${created.body.id}`);
    expect(stolen.status).toBe(404);
    expect(stolen.body.error.code).toBe('not_found');
    expect((await t.rpc(created.body.key, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })).status).toBe(200);
    expect((await other.client.api('GET', '/keys')).body.keys).toEqual([]);
  });

  it("switches the session's account only among the user's own", async () => {
    const { client, session } = await signedUpClient(t, 'heidi@example.com');
    const elsewhere = await signedUpClient(t, 'ivan@example.com');
    const refused = await client.api('PUT', '/session/account', { account_id: elsewhere.session.account.id });
    expect(refused.status).toBe(404);
    const same = await client.api('PUT', '/session/account', { account_id: session.account.id });
    expect(same.status).toBe(200);
    expect(same.body.account.id).toBe(session.account.id);
    const missing = await client.api('PUT', '/session/account', {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('account_id');
  });

  // Last: every earlier failure came from this address too, and after this one no sign-in from it passes.
  it('answers 429 after 30 failed sign-ins from one address, whatever the emails', async () => {
    const client = dashboardClient(t.url);
    let failures = 0;
    let answer = await client.api('POST', '/session', { email: 'spray0@example.com', password: 'some guess' });
    while (answer.status === 401 && failures < 40) {
      failures++;
      answer = await client.api('POST', '/session', { email: `spray${failures}@example.com`, password: 'some guess' });
    }
    expect(answer.status).toBe(429);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    // The tests above failed twice from this address, and bob's sign-in forgave his one wrong password.
    expect(failures).toBe(30 - 1);
  });
});
