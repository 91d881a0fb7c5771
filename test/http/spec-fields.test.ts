import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';

/** Spec section 2's fields, as it names them (docs/api-fields.md lists what we add where it is silent). */
const spec = {
  webhookCreated: ['id', 'url', 'chain', 'event_type', 'config', 'signing_secret', 'status', 'created_at'],
  webhookListItem: ['id', 'url', 'chain', 'event_type', 'status', 'created_at'],
  webhookUpdated: ['id', 'url', 'chain', 'event_type', 'status', 'updated_at'],
  walletCreated: ['address', 'owner', 'chain', 'status', 'factory', 'created_at'],
  wallet: ['address', 'owner', 'chain', 'status', 'factory', 'nonce', 'created_at', 'deployed_at', 'deploy_tx'],
  walletListItem: ['address', 'owner', 'chain', 'status', 'created_at'],
  walletSingleOnly: ['nonce', 'deployed_at', 'deploy_tx'],
  gasPolicy: ['id', 'name', 'chain', 'rules', 'status', 'created_at'],
  gasPrices: ['chain', 'block_number', 'base_fee_gwei', 'estimates', 'updated_at'],
  gasEstimate: ['max_fee_gwei', 'max_priority_fee_gwei', 'estimated_seconds'],
  page: ['page', 'total'],
} as const;

const keysOf = (value: object) => Object.keys(value).sort();

describe('responses carry the fields of spec section 2', () => {
  let t: TestService;
  let key: string;
  let check: ReturnType<typeof createResponseChecker>;

  const api = async (method: string, path: string, template: string, body?: unknown) => {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are inspected freely
    const answer = (await response.json()) as any;
    check(method, template, response.status, answer);
    return { status: response.status, body: answer };
  };

  beforeAll(async () => {
    t = await startTestService();
    await installErc4337Contracts(t.anvil.url);
    key = (await t.createKey()).key;
    check = createResponseChecker((await (await fetch(`${t.url}/v1/openapi.json`)).json()) as OpenApiDocument);
  }, 120_000);
  afterAll(() => t?.stop());

  it('webhook list items are exactly id, url, chain, event_type, status, created_at (no config, no secret)', async () => {
    const created = await api('POST', '/v1/webhooks', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      chain: 'ethereum',
      event_type: 'address_activity',
      config: { addresses: ['0x000000000000000000000000000000000000dead'] },
    });
    expect(created.status).toBe(201);
    expect(keysOf(created.body)).toEqual(expect.arrayContaining([...spec.webhookCreated].sort()));

    const listed = await api('GET', '/v1/webhooks', '/v1/webhooks');
    expect(listed.status).toBe(200);
    expect(keysOf(listed.body)).toEqual(expect.arrayContaining([...spec.page, 'webhooks']));
    expect(listed.body.webhooks).toHaveLength(1);
    for (const item of listed.body.webhooks) expect(keysOf(item)).toEqual([...spec.webhookListItem].sort());
    expect(listed.body.webhooks[0]).toEqual({
      id: created.body.id,
      url: created.body.url,
      chain: 'ethereum',
      event_type: 'address_activity',
      status: 'active',
      created_at: created.body.created_at,
    });

    const updated = await api('PATCH', `/v1/webhooks/${created.body.id}`, '/v1/webhooks/{id}', { status: 'paused' });
    expect(updated.status).toBe(200);
    expect(keysOf(updated.body)).toEqual(expect.arrayContaining([...spec.webhookUpdated].sort()));
    expect(updated.body.signing_secret).toBeUndefined();

    const deleted = await api('DELETE', `/v1/webhooks/${created.body.id}`, '/v1/webhooks/{id}');
    expect(deleted.body).toEqual({ id: created.body.id, deleted: true });
  });

  it('wallets: the creation answer and the record carry theirs; list items never the single-wallet fields', async () => {
    const owner = privateKeyToAccount(generatePrivateKey()).address;
    const created = await api('POST', '/v1/wallets/create', '/v1/wallets/create', { owner, chain: 'ethereum' });
    expect(created.status).toBe(201);
    expect(keysOf(created.body)).toEqual(expect.arrayContaining([...spec.walletCreated].sort()));
    expect(created.body.status).toBe('counterfactual');

    const got = await api('GET', `/v1/wallets/${created.body.address}`, '/v1/wallets/{address}');
    expect(keysOf(got.body)).toEqual(expect.arrayContaining([...spec.wallet].sort()));

    const listed = await api('GET', '/v1/wallets', '/v1/wallets');
    expect(keysOf(listed.body)).toEqual(expect.arrayContaining([...spec.page, 'wallets']));
    for (const item of listed.body.wallets) {
      expect(keysOf(item)).toEqual(expect.arrayContaining([...spec.walletListItem].sort()));
      for (const field of spec.walletSingleOnly) expect(item).not.toHaveProperty(field);
    }
  });

  it('gas policies and gas prices', async () => {
    const policy = await api('POST', '/v1/gas/policies', '/v1/gas/policies', {
      name: 'spec',
      chain: 'ethereum',
      rules: { max_gas_usd: '10', max_per_user_per_day: 3 },
    });
    expect(policy.status).toBe(201);
    expect(keysOf(policy.body)).toEqual(expect.arrayContaining([...spec.gasPolicy].sort()));
    expect(policy.body.status).toBe('active');
    expect(keysOf(policy.body.rules)).toEqual(expect.arrayContaining(['max_gas_usd', 'max_per_user_per_day']));
    expect(policy.body.id).toMatch(/^gp_/);

    const prices = await api('GET', '/v1/gas/ethereum/prices', '/v1/gas/{chain}/prices');
    expect(prices.status).toBe(200);
    expect(keysOf(prices.body)).toEqual([...spec.gasPrices].sort());
    for (const speed of ['slow', 'standard', 'fast']) {
      expect(keysOf(prices.body.estimates[speed])).toEqual([...spec.gasEstimate].sort());
    }
  });
});
