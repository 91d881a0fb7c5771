import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const blockNumber = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };

describe('authentication and authorization', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService();
  });
  afterAll(() => t?.stop());

  async function expectError(response: Response, status: number, code: string, messagePart?: RegExp) {
    expect(response.status).toBe(status);
    const body = (await response.json()) as { error: { code: string; message: string; status: number } };
    expect(body.error.code).toBe(code);
    expect(body.error.status).toBe(status);
    if (messagePart) expect(body.error.message).toMatch(messagePart);
    return body;
  }

  it('accepts X-API-Key and Authorization: Bearer identically', async () => {
    const { key } = await t.createKey();
    const viaHeader = await t.rpc(key, blockNumber);
    const viaBearer = await t.rpc(undefined, blockNumber, undefined, { authorization: `Bearer ${key}` });
    expect(viaHeader.status).toBe(200);
    expect(viaBearer.status).toBe(200);
    const [a, b] = [(await viaHeader.json()) as { result: string }, (await viaBearer.json()) as { result: string }];
    expect(a.result).toMatch(/^0x[0-9a-f]+$/);
    expect(b.result).toMatch(/^0x[0-9a-f]+$/);
  });

  it('401 for a missing, malformed or unknown key', async () => {
    await expectError(await t.rpc(undefined, blockNumber), 401, 'unauthorized', /missing API key/);
    await expectError(await t.rpc('not-a-key', blockNumber), 401, 'unauthorized', /malformed/);
    await expectError(
      await t.rpc(undefined, blockNumber, undefined, { authorization: 'Basic abc' }),
      401,
      'unauthorized',
      /Bearer/,
    );
    const unknown = `svc_test_${'A'.repeat(44)}`;
    await expectError(await t.rpc(unknown, blockNumber), 401, 'unauthorized', /invalid API key/);
  });

  it('401 when two different keys are sent', async () => {
    const first = await t.createKey();
    const second = await t.createKey();
    const response = await t.rpc(first.key, blockNumber, undefined, { authorization: `Bearer ${second.key}` });
    await expectError(response, 401, 'unauthorized', /two different/);
  });

  it('a revoked key gets 401 from the moment it is revoked', async () => {
    const { key, keyId } = await t.createKey();
    expect((await t.rpc(key, blockNumber)).status).toBe(200);
    const revoked = await t.admin('DELETE', `/admin/keys/${keyId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    await expectError(await t.rpc(key, blockNumber), 401, 'unauthorized', /revoked/);
    expect((await t.admin('DELETE', '/admin/keys/key_doesnotexist')).status).toBe(404);
  });

  it('403 for a key without the scope, naming the scope', async () => {
    const { key } = await t.createKey({ scopes: ['data:read'] });
    await expectError(await t.rpc(key, blockNumber), 403, 'forbidden', /rpc:read/);
  });

  it('403 for a key of the wrong environment: test keys on mainnets, live keys on testnets', async () => {
    const test = await t.createKey({ environment: 'test' });
    const live = await t.createKey({ environment: 'live' });
    expect(live.key.startsWith('svc_live_')).toBe(true);
    expect(test.key.startsWith('svc_test_')).toBe(true);
    await expectError(await t.rpc(test.key, blockNumber, '/v1/rpc/ethereum/mainnet'), 403, 'forbidden', /mainnet/);
    await expectError(await t.rpc(live.key, blockNumber, '/v1/rpc/ethereum/devnet'), 403, 'forbidden', /testnet/);
    expect((await t.rpc(live.key, blockNumber, '/v1/rpc/ethereum/mainnet')).status).toBe(200);
  });

  it('stores keys only as SHA-256 hashes', async () => {
    const { key, keyId } = await t.createKey();
    const rows = await sql<{ row: string }>`select row_to_json(k)::text as row from api_keys k where id = ${keyId}`.execute(
      t.database.db,
    );
    const stored = rows.rows[0]!.row;
    expect(stored).not.toContain(key);
    expect(stored).not.toContain(key.slice(13));
    const { createHash } = await import('node:crypto');
    expect(stored).toContain(createHash('sha256').update(key).digest('hex'));
  });

  it('the key list never shows a key, and keys get all seven scopes by default', async () => {
    const { key, accountId } = await t.createKey();
    const list = await t.admin('GET', `/admin/accounts/${accountId}/keys`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(list.body.keys[0].prefix).toBe(key.slice(0, 13));
    expect(list.body.keys[0].scopes).toHaveLength(7);
  });

  describe('admin API', () => {
    it('401 without the admin token or with a wrong one', async () => {
      const none = await fetch(`${t.url}/admin/accounts`, { method: 'GET' });
      await expectError(none, 401, 'unauthorized', /missing admin token/);
      const wrong = await fetch(`${t.url}/admin/accounts`, { headers: { authorization: 'Bearer nope-nope-nope-nope' } });
      await expectError(wrong, 401, 'unauthorized', /invalid admin token/);
      const apiKey = (await t.createKey()).key;
      const withApiKey = await fetch(`${t.url}/admin/accounts`, { headers: { authorization: `Bearer ${apiKey}` } });
      await expectError(withApiKey, 401, 'unauthorized');
    });

    it('refuses bad bodies with a message naming the parameter, and creates nothing', async () => {
      const before = (await t.admin('GET', '/admin/accounts?limit=100')).body.total;
      const badPlan = await t.admin('POST', '/admin/accounts', { name: 'x', plan: 'platinum' });
      expect(badPlan.status).toBe(400);
      expect(badPlan.body.error.message).toMatch(/plan/);
      const noName = await t.admin('POST', '/admin/accounts', { plan: 'free' });
      expect(noName.status).toBe(400);
      expect(noName.body.error.message).toMatch(/'name'/);
      const badScope = await t.admin('POST', '/admin/accounts/acc_x/keys', {
        name: 'k',
        environment: 'test',
        scopes: ['rpc:admin'],
      });
      expect(badScope.status).toBe(400);
      expect(badScope.body.error.message).toMatch(/scopes/);
      const badEnv = await t.admin('POST', '/admin/accounts/acc_x/keys', { name: 'k', environment: 'prod' });
      expect(badEnv.status).toBe(400);
      expect(badEnv.body.error.message).toMatch(/environment/);
      const notJson = await fetch(`${t.url}/admin/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json' },
        body: '{nope',
      });
      await expectError(notJson, 400, 'invalid_request', /JSON/);
      expect((await t.admin('GET', '/admin/accounts?limit=100')).body.total).toBe(before);
    });

    it('a key for an account that does not exist is 404', async () => {
      const response = await t.admin('POST', '/admin/accounts/acc_nope/keys', { name: 'k', environment: 'test' });
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    });

    it('creates accounts with plan limits and overrides', async () => {
      const free = await t.admin('POST', '/admin/accounts', { name: 'f', plan: 'free' });
      expect(free.status).toBe(201);
      expect(free.body.limits).toEqual({
        rps: 10,
        rpd: 100000,
        cups: 200,
        webhook_deliveries_per_day: 1000,
        sponsorship_usd_per_day: '10',
        sponsorship_usd_total: '100',
      });
      const enterprise = await t.admin('POST', '/admin/accounts', {
        name: 'e',
        plan: 'enterprise',
        limits: { rps: 500, cups: null },
      });
      expect(enterprise.body.limits).toEqual({
        rps: 500,
        rpd: null,
        cups: null,
        webhook_deliveries_per_day: null,
        sponsorship_usd_per_day: null,
        sponsorship_usd_total: null,
      });
      expect(enterprise.body.id).toMatch(/^acc_/);
    });
  });
});
