import { Alchemy, type Network, WebhookType } from 'alchemy-sdk';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { callApi, type Receiver, startWebhookChain, verifySignatures, type WebhookChain } from './support.ts';

const watched = '0x00000000000000000000000000000000000a1c4e' as Address;
const nftA = '0x00000000000000000000000000000000000000a1';
const nftB = '0x00000000000000000000000000000000000000b2';

/** The status and message of the error an alchemy-sdk call threw: it rejects with "<status>: <answer JSON>". */
async function sdkFailure(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
  } catch (error) {
    const text = (error as Error).message;
    const colon = text.indexOf(': ');
    return { status: Number(text.slice(0, colon)), message: text.slice(colon + 2) };
  }
  throw new Error('the call succeeded');
}

describe("Alchemy Notify's webhook calls, through alchemy-sdk's notify namespace", () => {
  let setup: WebhookChain;
  let chain: IndexedChain;
  let receiver: Receiver;
  let key: string;
  let otherKey: string;
  let notify: Alchemy['notify'];

  const api = (method: string, path: string, body?: unknown, apiKey = key) =>
    callApi(chain.service.url, apiKey, method, path, body, 30_000);

  beforeAll(async () => {
    setup = await startWebhookChain();
    ({ chain, receiver, key } = setup);
    otherKey = (await chain.service.createKey()).key;
    // As a user points the SDK at Blockyard: its Notify base URL and the API key as the auth token.
    notify = new Alchemy({ url: `${chain.service.url}/api`, authToken: key, maxRetries: 0 }).notify;
  }, 120_000);
  afterAll(async () => {
    await setup?.stop();
  });

  it('creates an ADDRESS_ACTIVITY webhook that delivers, signed with the key it answered', async () => {
    // The devnet is no Alchemy network: the SDK leaves `network` out, and the key's default is taken.
    const created = await notify.createWebhook(receiver.url, WebhookType.ADDRESS_ACTIVITY, {
      addresses: [watched],
      network: 'eth-devnet' as Network,
    });
    expect(created).toMatchObject({ type: 'ADDRESS_ACTIVITY', url: receiver.url, isActive: true, version: 'V2' });
    expect(created.id).toMatch(/^wh_/);
    expect(created.signingKey).toMatch(/^whsec_/);
    expect(Math.abs(Date.parse(created.timeCreated) - Date.now())).toBeLessThan(60_000);
    const stored = await api('GET', `/v1/webhooks/${created.id}`);
    expect(stored.body).toMatchObject({
      chain: 'ethereum',
      network: 'devnet',
      event_type: 'address_activity',
      payload_format: 'camelCase',
      config: { addresses: [watched] },
    });

    const { webhooks, totalCount } = await notify.getAllWebhooks();
    expect(totalCount).toBe(webhooks.length);
    const listed = webhooks.find((webhook) => webhook.id === created.id);
    expect(listed).toMatchObject({ type: 'ADDRESS_ACTIVITY', url: receiver.url, isActive: true });
    // The signing key is shown once, at creation.
    expect(listed?.signingKey).toBeUndefined();

    const hash = await chain.wallet.sendTransaction({ to: watched, value: 7n });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    await receiver.waitFor((requests) => requests.some((request) => request.json?.webhookId === created.id), 30_000);
    const delivery = receiver.requests.find((request) => request.json?.webhookId === created.id)!;
    expect(delivery.json).toMatchObject({ type: 'ADDRESS_ACTIVITY', data: { transactionHash: hash, to: watched, value: '7' } });
    verifySignatures(delivery, created.signingKey, 'camelCase');
  });

  it('turns a webhook off and on, edits its addresses, and deletes it', async () => {
    const created = await notify.createWebhook(receiver.url, WebhookType.ADDRESS_ACTIVITY, {
      addresses: [watched],
      network: 'eth-devnet' as Network,
    });
    await notify.updateWebhook(created.id, { isActive: false });
    expect((await api('GET', `/v1/webhooks/${created.id}`)).body).toMatchObject({ status: 'paused' });
    expect((await notify.getAllWebhooks()).webhooks.find((webhook) => webhook.id === created.id)?.isActive).toBe(false);
    await notify.updateWebhook(created.id, { isActive: true });
    expect((await api('GET', `/v1/webhooks/${created.id}`)).body).toMatchObject({ status: 'active' });

    const added = '0x00000000000000000000000000000000000b0b0b';
    await notify.updateWebhook(created.id, { addAddresses: [added], removeAddresses: [watched] });
    expect(await notify.getAddresses(created.id)).toEqual({ addresses: [added], totalCount: 1, pageKey: null });

    await notify.deleteWebhook(created.id);
    expect((await api('GET', `/v1/webhooks/${created.id}`)).status).toBe(404);
    expect(await sdkFailure(notify.deleteWebhook(created.id))).toMatchObject({ status: 404 });
  });

  it('NFT_ACTIVITY: contracts alone, or every listed contract with every listed token id', async () => {
    const contracts = await notify.createWebhook(receiver.url, WebhookType.NFT_ACTIVITY, {
      filters: [{ contractAddress: nftA }, { contractAddress: nftB }],
      network: 'eth-devnet' as Network,
    });
    expect(contracts.type).toBe('NFT_ACTIVITY');
    expect((await api('GET', `/v1/webhooks/${contracts.id}`)).body).toMatchObject({
      event_type: 'nft_transfer',
      config: { contracts: [nftA, nftB] },
    });
    const ids = await notify.createWebhook(receiver.url, WebhookType.NFT_ACTIVITY, {
      filters: [
        { contractAddress: nftA, tokenId: 1 },
        { contractAddress: nftA, tokenId: '0x10' },
      ],
      network: 'eth-devnet' as Network,
    });
    expect((await api('GET', `/v1/webhooks/${ids.id}`)).body.config).toEqual({ contracts: [nftA], token_ids: ['1', '16'] });

    // Pairs a contracts x token ids filter cannot say are refused, not widened.
    const mixed = await sdkFailure(
      notify.createWebhook(receiver.url, WebhookType.NFT_ACTIVITY, {
        filters: [{ contractAddress: nftA, tokenId: 1 }, { contractAddress: nftB }],
        network: 'eth-devnet' as Network,
      }),
    );
    expect(mixed.status).toBe(400);
    expect(mixed.message).toContain("'nft_filters'");
  });

  it("NFT filters read page by page and changed pair by pair (getNftFilters, updateWebhook's addFilters and removeFilters)", async () => {
    const webhook = await notify.createWebhook(receiver.url, WebhookType.NFT_ACTIVITY, {
      filters: [{ contractAddress: nftA }],
      network: 'eth-devnet' as Network,
    });
    await notify.updateWebhook(webhook.id, { addFilters: [{ contractAddress: nftB }] });
    expect(await notify.getNftFilters(webhook.id)).toEqual({
      filters: [{ contractAddress: nftA }, { contractAddress: nftB }],
      totalCount: 2,
      pageKey: null,
    });
    const first = await notify.getNftFilters(webhook.id, { limit: 1 });
    expect(first).toEqual({ filters: [{ contractAddress: nftA }], totalCount: 2, pageKey: '1' });
    expect((await notify.getNftFilters(webhook.id, { limit: 1, pageKey: first.pageKey })).filters).toEqual([
      { contractAddress: nftB },
    ]);

    // From contracts to token ids of one contract: remove both, add the ids, in one call.
    await notify.updateWebhook(webhook.id, {
      removeFilters: [{ contractAddress: nftA }, { contractAddress: nftB }],
      addFilters: [
        { contractAddress: nftA, tokenId: 5 },
        { contractAddress: nftA, tokenId: 6 },
      ],
    });
    expect((await api('GET', `/v1/webhooks/${webhook.id}`)).body.config).toEqual({ contracts: [nftA], token_ids: ['5', '6'] });

    // A change whose result is no contracts x ids product, or no filter at all, changes nothing.
    const mixed = await sdkFailure(notify.updateWebhook(webhook.id, { addFilters: [{ contractAddress: nftB }] }));
    expect(mixed.status).toBe(400);
    expect(mixed.message).toContain("'nft_filters_to_add'");
    const emptied = await sdkFailure(
      notify.updateWebhook(webhook.id, {
        removeFilters: [
          { contractAddress: nftA, tokenId: 5 },
          { contractAddress: nftA, tokenId: 6 },
        ],
      }),
    );
    expect(emptied.status).toBe(400);
    expect(emptied.message).toContain("'nft_filters_to_remove'");
    expect((await api('GET', `/v1/webhooks/${webhook.id}`)).body.config).toEqual({ contracts: [nftA], token_ids: ['5', '6'] });

    const addressWebhook = await notify.createWebhook(receiver.url, WebhookType.ADDRESS_ACTIVITY, {
      addresses: [watched],
      network: 'eth-devnet' as Network,
    });
    expect(await sdkFailure(notify.getNftFilters(addressWebhook.id))).toMatchObject({ status: 400 });
    const bad = await api('PATCH', '/api/update-webhook-nft-filters', {
      webhook_id: webhook.id,
      nft_filters_to_add: [{ contract_address: nftA, token_id: '-1' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("'nft_filters_to_add[0].token_id'");
    expect((await api('GET', `/api/webhook-nft-filters?webhook_id=${webhook.id}`, undefined, otherKey)).status).toBe(404);
  });

  it('refuses what it cannot serve with a 400 naming the field, and keeps accounts apart', async () => {
    const create = (body: Record<string, unknown>) => api('POST', '/api/create-webhook', body);
    const base = { webhook_url: receiver.url, webhook_type: 'ADDRESS_ACTIVITY', addresses: [watched] };

    const mainnet = await create({ ...base, network: 'ETH_MAINNET' });
    expect(mainnet.status).toBe(400);
    expect(mainnet.body.error.message).toContain("'network'");
    expect(mainnet.body.error.message).toContain('ETH_DEVNET');
    const devnet = await create({ ...base, network: 'ETH_DEVNET' });
    expect(devnet.status).toBe(200);
    expect(devnet.body.data).toMatchObject({ network: 'ETH_DEVNET', webhook_type: 'ADDRESS_ACTIVITY', is_active: true });

    const mined = await create({ ...base, webhook_type: 'MINED_TRANSACTION', addresses: undefined, app_id: 'x' });
    expect(mined.status).toBe(400);
    for (const [body, field] of [
      [{ ...base, webhook_type: 'MINED_TRANSACTION', addresses: undefined }, "'webhook_type'"],
      [{ ...base, addresses: [] }, "'addresses'"],
      [{ ...base, name: 'mine' }, 'name'],
      [{ ...base, addresses: [watched, 'nope'] }, "'addresses[1]'"],
      [{ ...base, webhook_url: 'ftp://example.com' }, "'webhook_url'"],
      [
        { ...base, webhook_type: 'NFT_ACTIVITY', addresses: undefined, nft_filters: [{ contract_address: nftA, token_id: 'x' }] },
        "'nft_filters[0].token_id'",
      ],
      [
        {
          ...base,
          webhook_type: 'NFT_ACTIVITY',
          addresses: undefined,
          nft_filters: [
            { contract_address: nftA, token_id: '1' },
            { contract_address: nftB, token_id: '2' },
          ],
        },
        "'nft_filters'",
      ],
    ] as const) {
      const refused = await create(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.message, JSON.stringify(body)).toContain(field);
    }

    const id = devnet.body.data.id;
    expect((await api('PUT', '/api/update-webhook', { webhook_id: id, is_active: false }, otherKey)).status).toBe(404);
    expect((await api('DELETE', `/api/delete-webhook?webhook_id=${id}`, undefined, otherKey)).status).toBe(404);
    const others = await api('GET', '/api/team-webhooks', undefined, otherKey);
    expect(others.body.data.some((webhook: { id: string }) => webhook.id === id)).toBe(false);
    expect((await api('PUT', '/api/update-webhook', { webhook_id: id })).status).toBe(400);
    expect((await api('DELETE', '/api/delete-webhook')).status).toBe(400);
    expect((await api('GET', `/v1/webhooks/${id}`)).body.status).toBe('active');
  });
});
