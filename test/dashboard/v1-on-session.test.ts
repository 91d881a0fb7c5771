import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { type DashboardClient, signedUpClient } from './support.ts';

describe('the /v1 routes on a dashboard session', () => {
  let t: TestService;
  let alice: DashboardClient;
  let mallory: DashboardClient;

  const withKey = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
    return { status: response.status, body: (await response.json()) as any };
  };

  beforeAll(async () => {
    t = await startTestService();
    await installErc4337Contracts(t.anvil.url);
    alice = (await signedUpClient(t, 'alice@example.com')).client;
    mallory = (await signedUpClient(t, 'mallory@example.com')).client;
  }, 120_000);
  afterAll(() => t?.stop());

  const webhookBody = {
    url: 'http://127.0.0.1:9/hook',
    chain: 'ethereum',
    event_type: 'ADDRESS_ACTIVITY',
    config: { addresses: ['0x000000000000000000000000000000000000dEaD'] },
  };

  it('manages webhooks with the same handlers and validation, uncharged, and only with the CSRF token', async () => {
    const created = await alice.api('POST', '/v1/webhooks', webhookBody);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: webhookBody.url, event_type: 'address_activity', status: 'active' });
    expect(created.headers.get('x-ratelimit-limit')).toBeNull();
    expect(created.headers.get('cache-control')).toBe('no-store');

    const invalid = await alice.api('POST', '/v1/webhooks', { ...webhookBody, url: undefined });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toContain('url');

    const noCsrf = await alice.api('POST', '/v1/webhooks', webhookBody, { csrf: false });
    expect(noCsrf.status).toBe(403);
    const listed = await alice.api('GET', '/v1/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body.webhooks.map((w: { id: string }) => w.id)).toEqual([created.body.id]);

    // A key of the account sees the webhook the session made: one account.
    const { key } = (await alice.api('POST', '/keys', { name: 'k', environment: 'test' })).body;
    expect((await withKey(key, 'GET', `/v1/webhooks/${created.body.id}`)).status).toBe(200);

    const unsigned = await fetch(`${t.url}/dashboard/api/v1/webhooks`, { signal: AbortSignal.timeout(10_000) });
    expect(unsigned.status).toBe(401);
  });

  it("answers 404 for another account's webhook and policy, and changes nothing", async () => {
    const hook = (await alice.api('POST', '/v1/webhooks', webhookBody)).body;
    const policy = await alice.api('POST', '/v1/gas/policies', { name: 'onboarding', chain: 'ethereum', rules: { max_ops: 5 } });
    expect(policy.status).toBe(201);

    expect((await mallory.api('GET', `/v1/webhooks/${hook.id}`)).status).toBe(404);
    expect((await mallory.api('PATCH', `/v1/webhooks/${hook.id}`, { status: 'paused' })).status).toBe(404);
    expect((await mallory.api('DELETE', `/v1/webhooks/${hook.id}`)).status).toBe(404);
    expect((await mallory.api('PATCH', `/v1/gas/policies/${policy.body.id}`, { status: 'paused' })).status).toBe(404);
    expect((await mallory.api('DELETE', `/v1/gas/policies/${policy.body.id}`)).status).toBe(404);

    expect((await alice.api('GET', `/v1/webhooks/${hook.id}`)).body.status).toBe('active');
    expect((await alice.api('GET', `/v1/gas/policies/${policy.body.id}`)).body.status).toBe('active');
  });

  it('reaches the networks of both environments (a test key cannot use the mainnet)', async () => {
    const onMainnet = await alice.api('POST', '/v1/gas/policies', {
      name: 'live',
      chain: 'ethereum',
      network: 'mainnet',
      rules: {},
    });
    expect(onMainnet.status).toBe(201);
    expect(onMainnet.body.network).toBe('mainnet');
    const { key } = (await alice.api('POST', '/keys', { name: 'test key', environment: 'test' })).body;
    const refused = await withKey(key, 'POST', '/v1/gas/policies', {
      name: 'x',
      chain: 'ethereum',
      network: 'mainnet',
      rules: {},
    });
    expect(refused.status).toBe(403);
  });

  it("lists the account's smart wallets of every key; a key sees only its own", async () => {
    const first = (await alice.api('POST', '/keys', { name: 'one', environment: 'test' })).body.key;
    const second = (await alice.api('POST', '/keys', { name: 'two', environment: 'test' })).body.key;
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    const a = await withKey(first, 'POST', '/v1/wallets/create', { owner, chain: 'ethereum', salt: 1 });
    const b = await withKey(second, 'POST', '/v1/wallets/create', { owner, chain: 'ethereum', salt: 2 });
    expect([a.status, b.status]).toEqual([201, 201]);

    const listed = await alice.api('GET', '/v1/wallets');
    expect(listed.status).toBe(200);
    expect(listed.body.wallets.map((w: { address: string }) => w.address).sort()).toEqual(
      [a.body.address, b.body.address].sort(),
    );
    expect((await alice.api('GET', `/v1/wallets/${b.body.address}`)).status).toBe(200);
    expect((await withKey(first, 'GET', '/v1/wallets')).body.wallets).toHaveLength(1);
    expect((await mallory.api('GET', '/v1/wallets')).body.wallets).toEqual([]);
    expect((await mallory.api('GET', `/v1/wallets/${a.body.address}`)).status).toBe(404);

    // Wallets belong to the key that creates them: a session has none to create them with.
    expect((await alice.api('POST', '/v1/wallets/create', { owner, chain: 'ethereum', salt: 3 })).status).toBe(403);
  });

  it("reads the account's usage, a policy's usage and the chains' status on the session", async () => {
    const { key } = (await alice.api('POST', '/keys', { name: 'usage', environment: 'test' })).body;
    for (let id = 0; id < 2; id++) {
      expect((await withKey(key, 'POST', '/v1/rpc/ethereum/devnet', { jsonrpc: '2.0', id, method: 'eth_chainId' })).status).toBe(
        200,
      );
    }
    await t.service.usage?.flushNow();
    const usage = await alice.api(
      'GET',
      `/v1/usage?group_by=method&granularity=minute&from=${new Date(Date.now() - 600_000).toISOString()}`,
    );
    expect(usage.status).toBe(200);
    const chainIdCalls = usage.body.series.find((series: { group: string }) => series.group === 'eth_chainId');
    expect(chainIdCalls.points.reduce((sum: number, point: { requests: number }) => sum + point.requests, 0)).toBe(2);
    // Mallory's account has none of it.
    expect((await mallory.api('GET', '/v1/usage?group_by=method')).body.series).toEqual([]);
    const keys = await alice.api('GET', '/keys');
    expect(keys.body.keys.find((listed: { name: string }) => listed.name === 'usage').last_used_at).toMatch(/^\d{4}-/);

    const policy = await alice.api('POST', '/v1/gas/policies', { name: 'p', chain: 'ethereum', rules: { max_gas_usd: '5' } });
    expect(policy.status).toBe(201);
    const policyUsage = await alice.api('GET', `/v1/gas/policies/${policy.body.id}/usage`);
    expect(policyUsage.status).toBe(200);
    expect(policyUsage.body).toMatchObject({ policy_id: policy.body.id, ops: 0, by_sender: [], by_day: [] });
    expect((await mallory.api('GET', `/v1/gas/policies/${policy.body.id}/usage`)).status).toBe(404);

    const chains = await alice.api('GET', '/chains');
    expect(chains.status).toBe(200);
    expect(chains.body.networks.map((n: { chain: string; network: string }) => `${n.chain}/${n.network}`)).toContain(
      'ethereum/devnet',
    );
    const unsigned = await fetch(`${t.url}/dashboard/api/chains`, { signal: AbortSignal.timeout(10_000) });
    expect(unsigned.status).toBe(401);
  });

  it('honours Idempotency-Key on the session, for the /v1 creates and its own key form', async () => {
    const idem = { headers: { 'idempotency-key': 'session-create-1' } };
    const body = { ...webhookBody, url: 'http://127.0.0.1:9/idempotent' };
    const created = await alice.api('POST', '/v1/webhooks', body, idem);
    expect(created.status).toBe(201);
    const again = await alice.api('POST', '/v1/webhooks', body, idem);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(created.body.id);
    // The session's account: a key of another account does not meet it.
    expect((await mallory.api('POST', '/v1/webhooks', body, idem)).headers.get('idempotent-replayed')).toBeNull();

    const keyIdem = { headers: { 'idempotency-key': 'session-key-1' } };
    const key = await alice.api('POST', '/keys', { name: 'idempotent', environment: 'test' }, keyIdem);
    expect(key.status).toBe(201);
    const keyAgain = await alice.api('POST', '/keys', { name: 'idempotent', environment: 'test' }, keyIdem);
    expect(keyAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(keyAgain.body.key).toBe(key.body.key);
    const other = await alice.api('POST', '/keys', { name: 'another', environment: 'test' }, keyIdem);
    expect(other.status).toBe(400);
    expect(other.body.error.message).toContain("'Idempotency-Key'");
  });

  it('is absent from the OpenAPI document', async () => {
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/dashboard'))).toEqual([]);
    expect(Object.keys(doc.paths)).toContain('/v1/webhooks');
    expect(Object.keys(doc.paths)).toContain('/admin/users');
  });
});
