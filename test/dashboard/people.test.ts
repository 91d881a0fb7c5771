import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { dashboardClient, mailedVerificationToken, signedUpClient, waitForMail } from './support.ts';

describe('dashboard people: members, invitations, password reset', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  async function invite(owner: ReturnType<typeof dashboardClient>, email: string, role: 'owner' | 'member') {
    const answer = await owner.api('POST', '/invitations', { email, role });
    expect(answer.status).toBe(201);
    return new URL(answer.body.link).searchParams.get('token')!;
  }

  it('invites by link: the invitee signs up into the account, as a member who cannot manage people', async () => {
    const owner = await signedUpClient(t, 'owner1@example.com');
    const created = await owner.client.api('POST', '/invitations', { email: 'Member1@example.com', role: 'member' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^inv_/),
      email: 'member1@example.com',
      role: 'member',
      link: expect.stringMatching(new RegExp(`^${t.url}/invite\\?token=\\w+$`)),
      expires_at: expect.any(String),
    });
    const days = (Date.parse(created.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    const listed = await owner.client.api('GET', '/invitations');
    expect(listed.body.invitations).toEqual([
      {
        id: created.body.id,
        email: 'member1@example.com',
        role: 'member',
        created_at: expect.any(String),
        expires_at: created.body.expires_at,
      },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('token');

    const token = new URL(created.body.link).searchParams.get('token')!;
    // Someone else holding the link cannot use it.
    const thief = await dashboardClient(t.url).api('POST', '/signup', {
      email: 'thief@example.com',
      password: 'thief password',
      invitation: token,
    });
    expect(thief.status).toBe(403);

    // The link and the invitee's email are not enough: joining completes from the link mailed to that address.
    const member = dashboardClient(t.url);
    const started = await member.api('POST', '/signup', {
      email: 'member1@example.com',
      password: 'member password',
      invitation: token,
    });
    expect(started.status).toBe(202);
    expect(await t.database.db.selectFrom('users').select('id').where('email', '=', 'member1@example.com').execute()).toEqual([]);
    expect((await owner.client.api('GET', '/invitations')).body.invitations).toHaveLength(1);
    const joined = await member.api('POST', '/signup/verify', { token: await mailedVerificationToken(t, 'member1@example.com') });
    expect(joined.status).toBe(200);
    expect(joined.body.account).toMatchObject({ id: owner.session.account.id, role: 'member' });
    expect(joined.body.accounts).toHaveLength(1);
    expect((await owner.client.api('GET', '/invitations')).body.invitations).toEqual([]);

    const members = await member.api('GET', '/members');
    expect(members.status).toBe(200);
    expect(members.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([
      ['owner1@example.com', 'owner'],
      ['member1@example.com', 'member'],
    ]);
    for (const [method, path, body] of [
      ['GET', '/invitations', undefined],
      ['POST', '/invitations', { email: 'x@example.com', role: 'member' }],
      ['DELETE', `/members/${owner.session.user.id}`, undefined],
    ] as const) {
      const refused = await member.api(method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error.message).toMatch(/^only an owner of the account can /);
    }
    // Members do the rest: keys, for one.
    expect((await member.api('POST', '/keys', { name: 'member key', environment: 'test' })).status).toBe(201);

    // The link works once.
    const reuse = await dashboardClient(t.url).api('POST', '/signup', {
      email: 'member1@example.com',
      password: 'member password',
      invitation: token,
    });
    expect(reuse.status).toBe(403);
  });

  it('lets a signed-in user accept an invitation through a mailed link, switching to the joined account; owners remove members, never the last owner', async () => {
    const owner = await signedUpClient(t, 'owner2@example.com');
    const other = await signedUpClient(t, 'other2@example.com');
    const token = await invite(owner.client, 'other2@example.com', 'member');
    // Accepting mails the invited address; nothing is joined until its link comes back.
    const asked = await other.client.api('POST', '/invitations/accept', { token });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ email: 'other2@example.com' });
    expect((await other.client.api('GET', '/session')).body.accounts).toHaveLength(1);
    const accepted = await other.client.api('POST', '/signup/verify', {
      token: await mailedVerificationToken(t, 'other2@example.com'),
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.account).toMatchObject({ id: owner.session.account.id, role: 'member' });
    expect(accepted.body.accounts.map((a: { id: string }) => a.id).sort()).toEqual(
      [owner.session.account.id, other.session.account.id].sort(),
    );
    expect((await other.client.api('GET', '/session')).body.account.id).toBe(owner.session.account.id);

    const lastOwner = await owner.client.api('DELETE', `/members/${owner.session.user.id}`);
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body.error.code).toBe('conflict');
    const removed = await owner.client.api('DELETE', `/members/${other.session.user.id}`);
    expect(removed.status).toBe(204);
    // The removed member's session falls back to their own account.
    const after = await other.client.api('GET', '/session');
    expect(after.body.account.id).toBe(other.session.account.id);
    expect(after.body.accounts).toHaveLength(1);
    expect((await owner.client.api('DELETE', `/members/${other.session.user.id}`)).status).toBe(404);
  });

  it('revokes an invitation: its link then fails', async () => {
    const owner = await signedUpClient(t, 'owner3@example.com');
    const created = await owner.client.api('POST', '/invitations', { email: 'late@example.com', role: 'owner' });
    expect((await owner.client.api('DELETE', `/invitations/${created.body.id}`)).status).toBe(204);
    expect((await owner.client.api('DELETE', `/invitations/${created.body.id}`)).status).toBe(404);
    const token = new URL(created.body.link).searchParams.get('token')!;
    const late = await dashboardClient(t.url).api('POST', '/signup', {
      email: 'late@example.com',
      password: 'late password',
      invitation: token,
    });
    expect(late.status).toBe(403);
  });

  it('resets a password through the mailed link (.eml outbox): single use, other sessions end', async () => {
    const { client: oldSession } = await signedUpClient(t, 'judy@example.com', 'judys old password');
    const anonymous = dashboardClient(t.url);
    const unknown = await anonymous.api('POST', '/password-reset', { email: 'nobody-here@example.com' });
    const asked = await anonymous.api('POST', '/password-reset', { email: 'Judy@example.com' });
    // The same answer for an unknown and a known email.
    expect([asked.status, asked.body, asked.headers.get('content-length')]).toEqual([202, undefined, '0']);
    expect([unknown.status, unknown.body, unknown.headers.get('content-length')]).toEqual([202, undefined, '0']);

    const mail = await waitForMail(join(t.dataDir, 'outbox'), 'To: judy@example.com', 5000, (text) =>
      text.includes('/reset-password?token='),
    );
    const link = /(http:\/\/\S+\/reset-password\?token=(\w+))/.exec(mail);
    expect(link?.[1]?.startsWith(`${t.url}/reset-password?token=`)).toBe(true);
    const token = link![2]!;

    const weak = await anonymous.api('POST', '/password-reset/confirm', { token, password: 'short' });
    expect(weak.status).toBe(400);
    const confirmed = await anonymous.api('POST', '/password-reset/confirm', { token, password: 'judys new password' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.user.email).toBe('judy@example.com');
    expect((await anonymous.api('GET', '/session')).status).toBe(200);
    expect((await oldSession.api('GET', '/session')).status).toBe(401);

    const again = await dashboardClient(t.url).api('POST', '/password-reset/confirm', {
      token,
      password: 'judys third password',
    });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toContain("'token'");

    expect(
      (await dashboardClient(t.url).api('POST', '/session', { email: 'judy@example.com', password: 'judys old password' }))
        .status,
    ).toBe(401);
    expect(
      (await dashboardClient(t.url).api('POST', '/session', { email: 'judy@example.com', password: 'judys new password' }))
        .status,
    ).toBe(200);
  });

  it('invite-only sign-up refuses without an invitation and accepts with one', async () => {
    const inviteOnly = await startTestService({ sharing: t, settings: { dashboard: { signup: 'invite_only' } } });
    try {
      const refused = await dashboardClient(inviteOnly.url).api('POST', '/signup', {
        email: 'kim@example.com',
        password: 'kims password',
      });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
      const owner = await signedUpClient(t, 'owner4@example.com');
      const token = await invite(owner.client, 'kim@example.com', 'member');
      const joined = await signedUpClient(inviteOnly, 'kim@example.com', 'kims password', { invitation: token });
      expect(joined.session.account.id).toBe(owner.session.account.id);
    } finally {
      await inviteOnly.stop();
    }
  });
});
