import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedUpClient } from '../dashboard/support.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';

const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
const blockNumber = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };

describe('key restrictions, limits and audit through the admin API and the dashboard API', () => {
  let t: TestService;
  let accountId: string;
  beforeAll(async () => {
    t = await startTestService();
    accountId = (await t.admin('POST', '/admin/accounts', { name: 'round trip', plan: 'growth' })).body.id;
  });
  afterAll(() => t?.stop());

  it('creates a key with restrictions and limits, stored in their canonical form', async () => {
    const created = await t.admin('POST', `/admin/accounts/${accountId}/keys`, {
      name: 'frontend',
      environment: 'test',
      restrictions: {
        origins: ['HTTPS://App.Example.com:443', 'https://*.Example.org/', 'http://localhost:3000', 'https://app.example.com'],
        ips: ['203.0.113.0/24', '2001:DB8::/32', '127.0.0.1'],
        contracts: ['0x52908400098527886E0F7030069857D2E4169EE7', '0x0000000000000000000000000000000000000001'],
        methods: ['eth_call', 'eth_getLogs', 'eth_subscribe', 'eth_sendUserOperation', 'getBalance', 'alchemy_getTokenBalances'],
        jwt: { required: false, public_keys: [{ id: 'rsa-1', alg: 'RS256', pem: rsaPem }] },
      },
      limits: { rps: 5, rpd: null },
    });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^svc_test_/);
    expect(created.body.restrictions).toEqual({
      origins: ['https://app.example.com', 'https://*.example.org', 'http://localhost:3000'],
      ips: ['203.0.113.0/24', '2001:db8::/32', '127.0.0.1'],
      contracts: ['0x52908400098527886e0f7030069857d2e4169ee7', '0x0000000000000000000000000000000000000001'],
      methods: ['eth_call', 'eth_getLogs', 'eth_subscribe', 'eth_sendUserOperation', 'getBalance', 'alchemy_getTokenBalances'],
      jwt: { required: false, public_keys: [{ id: 'rsa-1', alg: 'RS256', pem: rsaPem.trim() }] },
    });
    expect(created.body.limits).toEqual({ rps: 5 });
    expect(created.body.previous_key_expires_at).toBeNull();

    const listed = await t.admin('GET', `/admin/accounts/${accountId}/keys`);
    const info = listed.body.keys.find((key: { id: string }) => key.id === created.body.id);
    expect(info.restrictions).toEqual(created.body.restrictions);
    expect(info.limits).toEqual({ rps: 5 });
    expect(info).not.toHaveProperty('key');
  });

  it('a key created without restrictions shows {} for both, and works as before', async () => {
    const created = await t.admin('POST', `/admin/accounts/${accountId}/keys`, { name: 'plain', environment: 'test' });
    expect(created.body.restrictions).toEqual({});
    expect(created.body.limits).toEqual({});
    expect((await t.rpc(created.body.key, blockNumber)).status).toBe(200);
  });

  it('PATCH replaces what it is given, keeps the rest, and records who changed what (no PEMs in the trail)', async () => {
    const created = await t.admin('POST', `/admin/accounts/${accountId}/keys`, {
      name: 'backend',
      environment: 'test',
      scopes: ['rpc:read'],
      restrictions: { ips: ['10.0.0.0/8'] },
    });
    const id = created.body.id;
    const patched = await t.admin('PATCH', `/admin/keys/${id}`, {
      restrictions: { methods: ['eth_call'], jwt: { public_keys: [{ id: 'rsa-1', alg: 'RS256', pem: rsaPem }] } },
      limits: { cups: 100 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.restrictions).toEqual({
      methods: ['eth_call'],
      jwt: { required: false, public_keys: [{ id: 'rsa-1', alg: 'RS256', pem: rsaPem.trim() }] },
    });
    expect(patched.body.limits).toEqual({ cups: 100 });
    expect(patched.body.name).toBe('backend');
    expect(patched.body.scopes).toEqual(['rpc:read']);

    const renamed = await t.admin('PATCH', `/admin/keys/${id}`, { name: 'backend-2', scopes: ['rpc:read', 'rpc:write'] });
    expect(renamed.body.restrictions.methods).toEqual(['eth_call']);
    const cleared = await t.admin('PATCH', `/admin/keys/${id}`, { restrictions: {}, limits: { cups: null } });
    expect(cleared.body.restrictions).toEqual({});
    expect(cleared.body.limits).toEqual({});

    const events = await t.admin('GET', `/admin/keys/${id}/events`);
    expect(events.status).toBe(200);
    expect(events.body.total).toBe(4);
    expect(events.body.page).toBe(1);
    const [last, second, first, creation] = events.body.events;
    expect(creation).toMatchObject({ action: 'create', actor: 'admin', key_id: id });
    expect(creation.details).toMatchObject({ name: 'backend', scopes: ['rpc:read'], restrictions: { ips: ['10.0.0.0/8'] } });
    expect(first.action).toBe('restrict');
    expect(first.details).toEqual({
      changed: ['restrictions', 'limits'],
      restrictions: {
        ips: { removed: ['10.0.0.0/8'] },
        methods: { added: ['eth_call'] },
        jwt: { public_key_ids: { added: ['rsa-1'] } },
      },
      limits: { cups: 100 },
    });
    expect(JSON.stringify(events.body)).not.toContain('BEGIN PUBLIC KEY');
    expect(second.details).toEqual({ changed: ['name', 'scopes'], name: 'backend-2', scopes: ['rpc:read', 'rpc:write'] });
    expect(last.details).toEqual({
      changed: ['restrictions', 'limits'],
      restrictions: { methods: { removed: ['eth_call'] }, jwt: { public_key_ids: { removed: ['rsa-1'] } } },
      limits: {},
    });
    // Newest first, each with its time.
    const times = events.body.events.map((event: { created_at: string }) => Date.parse(event.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(Number(last.id)).toBeGreaterThan(Number(creation.id));

    const paged = await t.admin('GET', `/admin/keys/${id}/events?page=2&limit=3`);
    expect(paged.body.events.map((event: { action: string }) => event.action)).toEqual(['create']);
    expect(paged.body.total).toBe(4);
  });

  it('the answers of the new admin routes match the OpenAPI document', async () => {
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument;
    const check = createResponseChecker(doc);
    const created = await t.admin('POST', `/admin/accounts/${accountId}/keys`, {
      name: 'documented',
      environment: 'live',
      restrictions: { origins: ['https://a.example'], jwt: { public_keys: [{ id: 'k', alg: 'RS256', pem: rsaPem }] } },
      limits: { rpd: 1000 },
    });
    check('POST', '/admin/accounts/{id}/keys', created.status, created.body);
    const id = created.body.id;
    const answers = [
      ['PATCH', '/admin/keys/{id}', await t.admin('PATCH', `/admin/keys/${id}`, { limits: { rps: 3 } })],
      ['PATCH', '/admin/keys/{id}', await t.admin('PATCH', `/admin/keys/${id}`, { restrictions: { ips: ['1.2.3.4/33'] } })],
      ['POST', '/admin/keys/{id}/rotate', await t.admin('POST', `/admin/keys/${id}/rotate`, { grace_s: 60 })],
      ['POST', '/admin/keys/{id}/rotate', await t.admin('POST', `/admin/keys/${id}/rotate`, { grace_s: 604_801 })],
      ['GET', '/admin/keys/{id}/events', await t.admin('GET', `/admin/keys/${id}/events`)],
      ['GET', '/admin/keys/{id}/events', await t.admin('GET', '/admin/keys/key_nope/events')],
      ['DELETE', '/admin/keys/{id}', await t.admin('DELETE', `/admin/keys/${id}`)],
      ['PATCH', '/admin/keys/{id}', await t.admin('PATCH', `/admin/keys/${id}`, { name: 'late' })],
    ] as const;
    expect(answers.map(([, , answer]) => answer.status)).toEqual([200, 400, 200, 400, 200, 404, 200, 409]);
    for (const [method, template, answer] of answers) check(method, template, answer.status, answer.body);
  });

  it('revocation is recorded once; a revoked key cannot be changed or rotated (409); unknown keys are 404', async () => {
    const created = await t.admin('POST', `/admin/accounts/${accountId}/keys`, { name: 'old', environment: 'test' });
    const id = created.body.id;
    expect((await t.admin('DELETE', `/admin/keys/${id}`)).status).toBe(200);
    expect((await t.admin('DELETE', `/admin/keys/${id}`)).status).toBe(200);
    const rotate = await t.admin('POST', `/admin/keys/${id}/rotate`, { grace_s: 60 });
    expect(rotate.status).toBe(409);
    expect(rotate.body.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/revoked/) });
    expect((await t.admin('PATCH', `/admin/keys/${id}`, { name: 'x' })).status).toBe(409);
    const events = await t.admin('GET', `/admin/keys/${id}/events`);
    expect(events.body.events.map((event: { action: string }) => event.action)).toEqual(['revoke', 'create']);
    for (const [method, path, body] of [
      ['PATCH', '/admin/keys/key_nope', { name: 'x' }],
      ['POST', '/admin/keys/key_nope/rotate', {}],
      ['GET', '/admin/keys/key_nope/events', undefined],
    ] as const) {
      const answer = await t.admin(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error.code).toBe('not_found');
    }
  });

  it('the dashboard changes, rotates and lists its own keys as user:<id>; another account gets 404', async () => {
    const owner = await signedUpClient(t, 'keys-owner@example.com');
    const stranger = await signedUpClient(t, 'keys-stranger@example.com');
    const created = await owner.client.api('POST', '/keys', {
      name: 'web',
      environment: 'test',
      restrictions: { origins: ['https://web.example.com'] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const patched = await owner.client.api('PATCH', `/keys/${id}`, { limits: { rps: 2 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ limits: { rps: 2 }, restrictions: { origins: ['https://web.example.com'] } });
    const bad = await owner.client.api('PATCH', `/keys/${id}`, { restrictions: { ips: ['300.1.1.1'] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/restrictions\.ips\[0\]/);
    const rotated = await owner.client.api('POST', `/keys/${id}/rotate`, { grace_s: 0 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).not.toBe(created.body.key);

    const events = await owner.client.api('GET', `/keys/${id}/events`);
    expect(events.status).toBe(200);
    const actor = `user:${owner.session.user.id}`;
    expect(events.body.events.map((event: { action: string; actor: string }) => [event.action, event.actor])).toEqual([
      ['rotate', actor],
      ['restrict', actor],
      ['create', actor],
    ]);

    for (const [method, path, body] of [
      ['PATCH', `/keys/${id}`, { name: 'stolen' }],
      ['POST', `/keys/${id}/rotate`, {}],
      ['GET', `/keys/${id}/events`, undefined],
    ] as const) {
      const answer = await stranger.client.api(method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.admin('GET', `/admin/keys/${id}/events`)).body.total).toBe(3);
  });
});
