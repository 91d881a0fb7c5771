import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { callApi, type Receiver, startWebhookChain, verifySignatures, type WebhookChain } from './support.ts';

/** The n-th made-up address of a test (lower-case, distinct per `base`). */
const nth = (base: number, n: number) =>
  `0x${(BigInt(base) * 0x1_0000_0000n + BigInt(n)).toString(16).padStart(40, '0')}` as Address;
const range = (base: number, from: number, count: number) => Array.from({ length: count }, (_, i) => nth(base, from + i));

describe('webhooks that watch many addresses', () => {
  let setup: WebhookChain;
  let chain: IndexedChain;
  let receiver: Receiver;
  let key: string;
  let otherKey: string;

  const call = (apiKey: string | undefined, method: string, path: string, body?: unknown) =>
    callApi(chain.service.url, apiKey, method, path, body, 30_000);
  const api = (method: string, path: string, body?: unknown) => call(key, method, path, body);
  const create = async (config: Record<string, unknown>, event_type = 'address_activity') => {
    const created = await api('POST', '/v1/webhooks', { url: receiver.url, chain: 'ethereum', event_type, config });
    expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201);
    return created.body;
  };
  /** Every address of a webhook through the paged GET, at most `maxPages` pages. */
  const readAll = async (id: string, limit: number, maxPages = 200) => {
    const all: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < maxPages; page++) {
      const query: string = cursor === null ? `limit=${limit}` : `limit=${limit}&cursor=${cursor}`;
      const got = await api('GET', `/v1/webhooks/${id}/addresses?${query}`);
      expect(got.status).toBe(200);
      all.push(...got.body.addresses);
      cursor = got.body.next_cursor;
      if (cursor === null) return all;
    }
    throw new Error(`more than ${maxPages} pages`);
  };
  const requestsOf = (id: string) => receiver.requests.filter((request) => request.json?.webhook_id === id);

  beforeAll(async () => {
    setup = await startWebhookChain();
    ({ chain, receiver, key } = setup);
    otherKey = (await chain.service.createKey()).key;
  }, 120_000);
  afterAll(async () => {
    await setup?.stop();
  });

  it('PATCH adds and removes, idempotently, and answers the count; GET reads it page by page', async () => {
    const webhook = await create({ addresses: [nth(1, 0)] });
    expect(webhook.address_count).toBe(1);
    expect(webhook.config.addresses).toEqual([nth(1, 0)]);
    const path = `/v1/webhooks/${webhook.id}/addresses`;

    const added = await api('PATCH', path, { add: range(1, 0, 250) });
    expect(added).toEqual({ status: 200, body: { id: webhook.id, address_count: 250 } });
    // Adding what is there and removing what is not change nothing.
    const again = await api('PATCH', path, { add: range(1, 0, 10), remove: [nth(2, 0)] });
    expect(again.body.address_count).toBe(250);
    // A checksummed (mixed-case) address is the same address.
    const checksummed = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    expect((await api('PATCH', path, { add: [checksummed, checksummed.toLowerCase()] })).body.address_count).toBe(251);
    const removed = await api('PATCH', path, { remove: [checksummed, ...range(1, 200, 50)] });
    expect(removed.body.address_count).toBe(200);
    expect((await api('PATCH', path, {})).body.address_count).toBe(200);

    const pages = await readAll(webhook.id, 7);
    expect(pages).toEqual(range(1, 0, 200));
    const first = await api('GET', `${path}?limit=3`);
    expect(first.body).toEqual({ addresses: range(1, 0, 3), total: 200, next_cursor: nth(1, 2) });
    const last = await api('GET', `${path}?limit=100&cursor=${nth(1, 150)}`);
    expect(last.body).toMatchObject({ addresses: range(1, 151, 49), next_cursor: null });
    expect((await api('GET', `${path}?limit=1000`)).body.addresses).toHaveLength(200);

    const got = await api('GET', `/v1/webhooks/${webhook.id}`);
    expect(got.body).toMatchObject({ address_count: 200, config: { addresses: range(1, 0, 200) } });
  });

  it('concurrent calls on one webhook keep the count the list has', async () => {
    const webhook = await create({ addresses: [nth(7, 0)] });
    const path = `/v1/webhooks/${webhook.id}/addresses`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, call) => api('PATCH', path, { add: range(7, 1 + call * 50, 100), remove: [nth(7, 0)] })),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const all = await readAll(webhook.id, 1000);
    expect(all).toEqual(range(7, 1, 550));
    expect((await api('GET', `/v1/webhooks/${webhook.id}`)).body.address_count).toBe(550);
  });

  it('refuses more than 1,000 a call, bad addresses and bad bodies with a 400 naming the parameter', async () => {
    const webhook = await create({ addresses: [nth(3, 0)] });
    const path = `/v1/webhooks/${webhook.id}/addresses`;
    const cases: [unknown, string][] = [
      [{ add: range(3, 0, 1001) }, "'add': has 1001 addresses; at most 1000"],
      [{ remove: range(3, 0, 1001) }, "'remove': has 1001 addresses; at most 1000"],
      [{ add: [nth(3, 1), '0x123'] }, "'add[1]': must be a 0x address"],
      [{ remove: [42] }, "'remove[0]': must be a 0x address"],
      [{ add: ['0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266'] }, "'add[0]'"],
      [{ add: { address: nth(3, 1) } }, 'add'],
      [{ addresses: [nth(3, 1)] }, 'addresses'],
    ];
    for (const [body, message] of cases) {
      const answer = await api('PATCH', path, body);
      expect(answer.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(answer.body.error.message).toContain(message);
    }
    // One address alone is read as a list of one (as the config's lists are).
    expect((await api('PATCH', path, { remove: nth(3, 0) })).body.address_count).toBe(0);
    expect((await api('PATCH', path, { add: nth(3, 0) })).body.address_count).toBe(1);
    const badCursor = await api('GET', `${path}?cursor=zzz`);
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.message).toContain("'cursor'");
    expect((await api('GET', `${path}?limit=1001`)).status).toBe(400);
    // Nothing of a refused call was kept.
    expect((await api('GET', `/v1/webhooks/${webhook.id}`)).body.address_count).toBe(1);
    // Another account's webhook does not exist; a type without addresses takes none.
    expect((await call(otherKey, 'PATCH', path, { add: [nth(3, 2)] })).status).toBe(404);
    expect((await call(otherKey, 'GET', path)).status).toBe(404);
    expect((await call(undefined, 'GET', path)).status).toBe(401);
    const blocks = await create({}, 'new_block');
    const noAddresses = await api('PATCH', `/v1/webhooks/${blocks.id}/addresses`, { add: [nth(3, 2)] });
    expect(noAddresses.status).toBe(400);
    expect(noAddresses.body.error.message).toContain('does not watch addresses');
  });

  it("Alchemy Notify's path forms: update-webhook-addresses and webhook-addresses", async () => {
    const webhook = await create({ addresses: [nth(4, 0)] });
    const updated = await api('PATCH', '/api/update-webhook-addresses', {
      webhook_id: webhook.id,
      addresses_to_add: range(4, 1, 20),
      addresses_to_remove: [nth(4, 0)],
    });
    expect(updated).toEqual({ status: 200, body: { webhook_id: webhook.id, address_count: 20 } });
    const page = await api('GET', `/api/webhook-addresses?webhook_id=${webhook.id}&limit=15`);
    expect(page.body).toEqual({ data: range(4, 1, 15), pagination: { cursors: { after: nth(4, 15) }, total_count: 20 } });
    const rest = await api('GET', `/api/webhook-addresses?webhook_id=${webhook.id}&limit=15&after=${nth(4, 15)}`);
    expect(rest.body).toEqual({ data: range(4, 16, 5), pagination: { cursors: { after: null }, total_count: 20 } });

    const tooMany = await api('PATCH', '/api/update-webhook-addresses', {
      webhook_id: webhook.id,
      addresses_to_add: range(4, 0, 1001),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toContain("'addresses_to_add'");
    const bad = await api('PATCH', '/api/update-webhook-addresses', { webhook_id: webhook.id, addresses_to_remove: ['nope'] });
    expect(bad.body.error.message).toContain("'addresses_to_remove[0]'");
    const missing = await api('PATCH', '/api/update-webhook-addresses', { addresses_to_add: [] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('webhook_id');
    const noId = await api('GET', '/api/webhook-addresses?limit=5');
    expect(noId.status).toBe(400);
    expect(noId.body.error.message).toContain("'webhook_id'");
    const unauthenticated = await call(undefined, 'PATCH', '/api/update-webhook-addresses', { webhook_id: webhook.id });
    expect(unauthenticated.status).toBe(401);
    expect((await call(otherKey, 'GET', `/api/webhook-addresses?webhook_id=${webhook.id}`)).status).toBe(404);
  });

  it("Alchemy Notify's replace (PUT) and its X-Alchemy-Token header", async () => {
    const webhook = await create({ addresses: range(7, 0, 3) });
    const withToken = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${chain.service.url}${path}`, {
        method,
        headers: { 'x-alchemy-token': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
      return { status: response.status, body: (await response.json()) as any };
    };
    const replaced = await withToken('PUT', '/api/update-webhook-addresses', {
      webhook_id: webhook.id,
      addresses: [...range(7, 10, 2_000), nth(7, 10)],
    });
    expect(replaced).toEqual({ status: 200, body: { webhook_id: webhook.id, address_count: 2_000 } });
    expect(await readAll(webhook.id, 1000)).toEqual(range(7, 10, 2_000));
    const page = await withToken('GET', `/api/webhook-addresses?webhook_id=${webhook.id}&limit=2`);
    expect(page.body).toEqual({ data: range(7, 10, 2), pagination: { cursors: { after: nth(7, 11) }, total_count: 2_000 } });
    // An empty list watches no address (it does not turn the webhook into one for every address).
    const emptied = await withToken('PUT', '/api/update-webhook-addresses', { webhook_id: webhook.id, addresses: [] });
    expect(emptied.body.address_count).toBe(0);
    await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.wallet.sendTransaction({ to: nth(7, 10), value: 3n }),
    });
    await chain.synced();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(requestsOf(webhook.id)).toEqual([]);

    const missing = await withToken('PUT', '/api/update-webhook-addresses', { webhook_id: webhook.id });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("'addresses'");
    const bad = await withToken('PUT', '/api/update-webhook-addresses', { webhook_id: webhook.id, addresses: [nth(7, 1), 'x'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("'addresses[1]'");
    const tooLong = await withToken('PUT', '/api/update-webhook-addresses', {
      webhook_id: webhook.id,
      addresses: Array.from({ length: 100_001 }, () => nth(7, 0)),
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toContain("'addresses': has 100001 addresses; at most 100000");
    expect((await api('GET', `/v1/webhooks/${webhook.id}`)).body.address_count).toBe(0);
    // The token is the key: another key's token is another account; two different keys are refused.
    const otherToken = await fetch(`${chain.service.url}/api/webhook-addresses?webhook_id=${webhook.id}`, {
      headers: { 'x-alchemy-token': otherKey },
      signal: AbortSignal.timeout(10_000),
    });
    expect(otherToken.status).toBe(404);
    const twoKeys = await fetch(`${chain.service.url}/api/webhook-addresses?webhook_id=${webhook.id}`, {
      headers: { 'x-alchemy-token': otherKey, 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });
    expect(twoKeys.status).toBe(401);
  }, 60_000);

  it('a long list given at creation goes to the table; its answers carry the count, not the list', async () => {
    const list = range(5, 0, 5_000);
    const webhook = await create({ addresses: list, min_value: '1' });
    expect(webhook.address_count).toBe(5_000);
    expect(webhook.config).toEqual({ min_value: '1' });
    const got = await api('GET', `/v1/webhooks/${webhook.id}`);
    expect(got.body).toMatchObject({ address_count: 5_000, config: { min_value: '1' } });
    expect(got.body.config.addresses).toBeUndefined();
    expect(await readAll(webhook.id, 1000)).toEqual(list);
    // A new config replaces the filter, its list too.
    const replaced = await api('PATCH', `/v1/webhooks/${webhook.id}`, { config: { addresses: [nth(5, 9_999)] } });
    expect(replaced.body).toMatchObject({ address_count: 1, config: { addresses: [nth(5, 9_999)] } });
    const tooLong = await api('POST', '/v1/webhooks', {
      url: receiver.url,
      chain: 'ethereum',
      event_type: 'address_activity',
      config: { addresses: Array.from({ length: 100_001 }, () => nth(5, 0)) },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toContain("'config.addresses': has 100001 entries; at most 100000");
  }, 60_000);

  it('100,000 addresses by 100 PATCH calls: the one added last is delivered, a removed one is not', async () => {
    const webhook = await create({ addresses: [nth(6, 0)] });
    const path = `/v1/webhooks/${webhook.id}/addresses`;
    const started = Date.now();
    for (let call = 0; call < 100; call++) {
      const answer = await api('PATCH', path, { add: range(6, call * 1000, 1000) });
      expect(answer.status).toBe(200);
      expect(answer.body.address_count).toBe((call + 1) * 1000);
      expect(Date.now() - started, 'the 100 calls take under 60 s').toBeLessThan(60_000);
    }
    const over = await api('PATCH', path, { add: [nth(6, 100_000)] });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain('at most 100000');
    const removedOne = nth(6, 500);
    expect((await api('PATCH', path, { remove: [removedOne] })).body.address_count).toBe(99_999);
    const got = await api('GET', `/v1/webhooks/${webhook.id}`);
    expect(got.body.address_count).toBe(99_999);
    expect(got.body.config.addresses).toBeUndefined();

    const lastAdded = nth(6, 99_999);
    await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.wallet.sendTransaction({ to: removedOne, value: 1n }),
    });
    await chain.publicClient.waitForTransactionReceipt({
      hash: await chain.wallet.sendTransaction({ to: lastAdded, value: 2n }),
    });
    await receiver.waitFor(() => requestsOf(webhook.id).length >= 1, 15_000, 'the delivery for the address added last');
    // The matcher goes in chain order: the earlier transaction was matched (or not) before the later.
    await chain.synced();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const delivered = requestsOf(webhook.id);
    expect(delivered.map((request) => request.json.data.to)).toEqual([lastAdded]);
    expect(delivered[0]!.json.data).toMatchObject({ value: '2', direction: 'incoming' });
    verifySignatures(delivered[0]!, webhook.signing_secret);
  }, 120_000);
});
