// The sweep of expired dashboard rows: sessions, one-time tokens and email verifications past their
// expiry, old sign-in failures and mail requests, Idempotency-Key answers past 24 h go; live ones stay and keep working.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';
import { signedUpClient } from './support.ts';

describe('expired dashboard rows', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  }, 120_000);
  afterAll(() => t?.stop());

  it('deletes expired sessions, tokens and old sign-in failures, and keeps live ones', async () => {
    const { client, session } = await signedUpClient(t, 'sweep@example.com');
    const db = t.database.db;
    const userId = session.user.id as string;
    const hour = 60 * 60 * 1000;
    const past = new Date(Date.now() - hour);
    const future = new Date(Date.now() + hour);
    await db
      .insertInto('sessions')
      .values({ token_hash: 'expired-session', user_id: userId, account_id: null, csrf_token: 'x', expires_at: past })
      .execute();
    await db
      .insertInto('user_tokens')
      .values([
        { token_hash: 'expired-token', user_id: userId, purpose: 'password_reset', expires_at: past },
        { token_hash: 'live-token', user_id: userId, purpose: 'sign_in', expires_at: future },
      ])
      .execute();
    await db
      .insertInto('sign_in_failures')
      .values([
        { email: 'sweep@example.com', ip: '127.0.0.9', failed_at: past },
        { email: 'sweep@example.com', ip: '127.0.0.9', failed_at: new Date() },
      ])
      .execute();

    await db
      .insertInto('email_verifications')
      .values({ token_hash: 'expired-verification', purpose: 'signup', email: 'late@example.com', expires_at: past })
      .execute();
    await db
      .insertInto('mail_requests')
      .values({ action: 'signup', email: 'late@example.com', ip: '127.0.0.9', requested_at: new Date(Date.now() - 2 * hour) })
      .execute();
    await sql`
      insert into idempotency_keys (owner, key, request_hash, state, status, body, created_at)
      values ('account:a', 'old', 'h', 'done', 201, 'sealed', now() - interval '25 hours'),
             ('account:a', 'recent', 'h', 'done', 201, 'sealed', now() - interval '23 hours')`.execute(db);

    expect(await t.service.expiredRows!.sweepNow()).toEqual({
      sessions: 1,
      tokens: 1,
      signInFailures: 1,
      verifications: 1,
      mailRequests: 1,
      idempotencyKeys: 1,
    });
    const keys = await sql<{ key: string }>`select key from idempotency_keys`.execute(db);
    expect(keys.rows).toEqual([{ key: 'recent' }]);

    const sessions = await db.selectFrom('sessions').select('token_hash').where('user_id', '=', userId).execute();
    expect(sessions.map((row) => row.token_hash)).not.toContain('expired-session');
    expect(sessions).toHaveLength(1);
    const tokens = await db.selectFrom('user_tokens').select('token_hash').where('user_id', '=', userId).execute();
    expect(tokens.map((row) => row.token_hash)).toEqual(['live-token']);
    expect(await db.selectFrom('sign_in_failures').select('failed_at').execute()).toHaveLength(1);
    // The live session still signs its requests in.
    expect((await client.api('GET', '/session')).status).toBe(200);
    expect(await t.service.expiredRows!.sweepNow()).toEqual({
      sessions: 0,
      tokens: 0,
      signInFailures: 0,
      verifications: 0,
      mailRequests: 0,
      idempotencyKeys: 0,
    });
    // The sign-up's own (used, live) verification and its mail request stay.
    expect(await db.selectFrom('email_verifications').select('email').execute()).toEqual([{ email: 'sweep@example.com' }]);
    expect(await db.selectFrom('mail_requests').select('email').execute()).toEqual([{ email: 'sweep@example.com' }]);
  });
});
