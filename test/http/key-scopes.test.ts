import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes as allScopes } from '../../src/auth/scopes.ts';
import { cliEnv, runCli } from '../support/cli.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('the scopes of a new key', () => {
  let t: TestService;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestService();
    const account = await t.admin('POST', '/admin/accounts', { name: 'scopes', plan: 'free' });
    accountId = account.body.id;
  });
  afterAll(() => t?.stop());

  const createKey = (body: Record<string, unknown>) =>
    t.admin('POST', `/admin/accounts/${accountId}/keys`, { name: 'k', environment: 'test', ...body });

  it('"scopes": [] is refused with 400 naming the parameter, and no key is created', async () => {
    const before = await t.admin('GET', `/admin/accounts/${accountId}/keys`);
    const refused = await createKey({ scopes: [] });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: { code: 'invalid_request', message: expect.stringContaining("'scopes'"), status: 400 },
    });
    const after = await t.admin('GET', `/admin/accounts/${accountId}/keys`);
    expect(after.body.total).toBe(before.body.total);
  });

  it('no scopes given: all seven; some given: exactly those', async () => {
    expect((await createKey({})).body.scopes).toEqual([...allScopes]);
    expect((await createKey({ scopes: ['data:read'] })).body.scopes).toEqual(['data:read']);
  });

  it("the CLI's `keys create --scopes ''` is refused the same way; without --scopes the key gets all seven", async () => {
    const cli = (scopes: string[]) =>
      runCli(['keys', 'create', '--account', accountId, ...scopes, '--url', t.url, '--admin-token', t.adminToken], {
        env: cliEnv(),
        cwd: t.dataDir,
        timeoutMs: 60_000,
      });
    const [empty, blank, all] = await Promise.all([cli(['--scopes', '']), cli(['--scopes', ' , ']), cli([])]);
    for (const refused of [empty, blank]) {
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      expect(JSON.parse(refused.stderr)).toEqual({
        error: { code: 'invalid_request', message: expect.stringContaining("'scopes'"), status: 400 },
      });
    }
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).scopes).toEqual([...allScopes]);
  }, 90_000);
});
