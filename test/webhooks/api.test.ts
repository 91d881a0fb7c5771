import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { callApi, type Receiver, startWebhookChain, verifySignatures, type WebhookChain } from './support.ts';

const someAddress = '0x00000000000000000000000000000000000c0de1' as Address;

describe('/v1/webhooks', () => {
  let setup: WebhookChain;
  let chain: IndexedChain;
  let receiver: Receiver;
  let key: string;
  let otherKey: string;

  const call = (apiKey: string, method: string, path: string, body?: unknown) =>
    callApi(chain.service.url, apiKey, method, path, body);
  const api = (method: string, path: string, body?: unknown) => call(key, method, path, body);
  const rows = async () =>
    Number(
      (
        await chain.service.database.db
          .selectFrom('webhooks')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const requestsOf = (id: string) =>
    receiver.requests.filter((request) => (request.json?.webhook_id ?? request.json?.webhookId) === id);

  beforeAll(async () => {
    setup = await startWebhookChain();
    ({ chain, receiver, key } = setup);
    otherKey = (await chain.service.createKey()).key;
  }, 120_000);
  afterAll(async () => {
    await setup?.stop();
  });

  it('creates, lists, gets, updates and deletes, per account', async () => {
    const created = await api('POST', '/v1/webhooks', {
      url: receiver.url,
      chain: 'ethereum',
      event_type: 'TOKEN_TRANSFER',
      config: { contracts: [someAddress.toUpperCase().replace('0X', '0x')], min_value: '0x10' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: receiver.url,
      chain: 'ethereum',
      network: 'devnet',
      event_type: 'token_transfer',
      config: { contracts: [someAddress], min_value: '16' },
      status: 'active',
      payload_format: 'snake_case',
    });
    expect(created.body.id).toMatch(/^wh_/);
    expect(created.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const id = created.body.id;

    const got = await api('GET', `/v1/webhooks/${id}`);
    expect(got.status).toBe(200);
    expect(got.body.signing_secret).toBeUndefined();
    expect(got.body.id).toBe(id);
    // The secret is stored encrypted, never in the clear.
    const stored = await chain.service.database.db
      .selectFrom('webhooks')
      .select('secret_ciphertext')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored.secret_ciphertext).not.toContain(created.body.signing_secret.slice(6));

    const second = await api('POST', '/v1/webhooks', { url: receiver.url, chain: 'ethereum', event_type: 'new_block' });
    const paused = await api('PATCH', `/v1/webhooks/${second.body.id}`, { status: 'paused' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: second.body.id, status: 'paused', status_reason: 'paused by its owner' });
    expect(Date.parse(paused.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(second.body.updated_at));

    const all = await api('GET', '/v1/webhooks');
    expect(all.body).toMatchObject({ page: 1, total: 2 });
    const onlyPaused = await api('GET', '/v1/webhooks?status=paused');
    expect(onlyPaused.body.webhooks.map((w: { id: string }) => w.id)).toEqual([second.body.id]);
    const page2 = await api('GET', '/v1/webhooks?limit=1&page=2');
    expect(page2.body).toMatchObject({ page: 2, total: 2 });
    expect(page2.body.webhooks).toHaveLength(1);

    const updated = await api('PATCH', `/v1/webhooks/${id}`, { config: { contracts: [someAddress], from: someAddress } });
    expect(updated.body.config).toEqual({ contracts: [someAddress], from: [someAddress] });

    // Another account sees none of it and changes nothing.
    expect((await call(otherKey, 'GET', '/v1/webhooks')).body.total).toBe(0);
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${id}`],
      ['PATCH', `/v1/webhooks/${id}`, { status: 'paused' }],
      ['DELETE', `/v1/webhooks/${id}`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
      ['POST', `/v1/webhooks/${id}/test`],
      ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ['POST', `/v1/webhooks/${id}/replay`, { from_block: 0 }],
    ] as const) {
      const answer = await call(otherKey, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error).toMatchObject({ code: 'not_found', status: 404 });
    }
    expect((await api('GET', `/v1/webhooks/${id}`)).body.status).toBe('active');

    const deleted = await api('DELETE', `/v1/webhooks/${id}`);
    expect(deleted.body).toEqual({ id, deleted: true });
    expect((await api('GET', `/v1/webhooks/${id}`)).status).toBe(404);
    await api('DELETE', `/v1/webhooks/${second.body.id}`);
  });

  it('refuses bad input with 400 naming the parameter, and stores nothing', async () => {
    const before = await rows();
    const cases: [unknown, string][] = [
      [{ url: receiver.url, chain: 'ethereum', event_type: 'whale_alert' }, 'event_type'],
      [{ url: receiver.url, chain: 'ethereum', event_type: 'log', config: { colour: 'red' } }, 'config.colour'],
      [
        { url: receiver.url, chain: 'ethereum', event_type: 'new_block', config: { addresses: [someAddress] } },
        'config.addresses',
      ],
      [
        { url: receiver.url, chain: 'ethereum', event_type: 'address_activity', config: { addresses: ['0x123'] } },
        'config.addresses[0]',
      ],
      [{ url: receiver.url, chain: 'ethereum', event_type: 'address_activity', config: {} }, 'config.addresses'],
      [
        { url: receiver.url, chain: 'ethereum', event_type: 'mined_transaction', config: { tx_hashes: ['0xnothex'] } },
        'config.tx_hashes[0]',
      ],
      [{ url: receiver.url, chain: 'ethereum', event_type: 'log', config: { topics: [null, 'x'] } }, 'config.topics[1]'],
      [{ url: receiver.url, chain: 'ethereum', event_type: 'token_transfer', config: { min_value: '-1' } }, 'config.min_value'],
      [
        { url: receiver.url, chain: 'ethereum', event_type: 'new_block', config: { confirmations: 5000 } },
        'config.confirmations',
      ],
      [{ url: 'ftp://example.com/x', chain: 'ethereum', event_type: 'new_block' }, 'url'],
      [{ url: 'not a url', chain: 'ethereum', event_type: 'new_block' }, 'url'],
      [{ url: 'http://10.0.0.7/hook', chain: 'ethereum', event_type: 'new_block' }, 'url'],
      [{ chain: 'ethereum', event_type: 'new_block' }, 'url'],
      [{ url: receiver.url, chain: 'ethereum', event_type: 'new_block', colour: 'red' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const answer = await api('POST', '/v1/webhooks', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.code).toBe('invalid_request');
      expect(answer.body.error.message, JSON.stringify(body)).toContain(param);
    }
    const unknownChain = await api('POST', '/v1/webhooks', { url: receiver.url, chain: 'dogechain', event_type: 'new_block' });
    // A chain named in a body is a field: unknown, 400 naming it (in a path it would be 404).
    expect([unknownChain.status, unknownChain.body.error.message]).toEqual([400, expect.stringContaining("'chain'")]);
    const noScope = (await chain.service.createKey({ scopes: ['rpc:read'] })).key;
    const forbidden = await call(noScope, 'POST', '/v1/webhooks', {
      url: receiver.url,
      chain: 'ethereum',
      event_type: 'new_block',
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toContain('webhooks:manage');
    const badStatus = await api('PATCH', '/v1/webhooks/wh_none', { status: 'disabled' });
    expect(badStatus.status).toBe(400);
    expect(await rows()).toBe(before);
  });

  it('sends a test event shaped like a real one, marked test: true', async () => {
    const created = await api('POST', '/v1/webhooks', {
      url: receiver.url,
      chain: 'ethereum',
      event_type: 'address_activity',
      config: { addresses: [someAddress] },
    });
    const test = await api('POST', `/v1/webhooks/${created.body.id}/test`);
    expect(test.status).toBe(202);
    await receiver.waitFor(() => requestsOf(created.body.id).length === 1, 10_000, 'the test event');
    const delivered = requestsOf(created.body.id)[0]!;
    verifySignatures(delivered, created.body.signing_secret);
    expect(delivered.json).toMatchObject({
      id: test.body.event_id,
      test: true,
      removed: false,
      event_type: 'address_activity',
      webhook_id: created.body.id,
    });
    expect(Object.keys(delivered.json.data).sort()).toEqual(
      [
        'asset',
        'block_hash',
        'block_number',
        'category',
        'chain',
        'contract',
        'direction',
        'from',
        'network',
        'status',
        'to',
        'tx_hash',
        'value',
      ].sort(),
    );
    expect(delivered.json.data).toMatchObject({ from: someAddress, direction: 'outgoing', asset: 'ETH', chain: 'ethereum' });
    const log = await eventually(
      async () => {
        const got = await api('GET', `/v1/webhooks/${created.body.id}/deliveries`);
        return got.body.deliveries[0]?.status === 'succeeded' ? got : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the test delivery recorded as succeeded' },
    );
    expect(log.body.deliveries[0]).toMatchObject({ id: test.body.delivery_id, kind: 'test', test: true, status: 'succeeded' });
  });

  it('rotates the secret: both sign for 24 h; redelivers and replays with the same event ids', async () => {
    const address = '0x00000000000000000000000000000000000c0de2' as Address;
    const created = await api('POST', '/v1/webhooks', {
      url: receiver.url,
      chain: 'ethereum',
      event_type: 'address_activity',
      config: { addresses: [address] },
    });
    const id = created.body.id;
    const hashes: Hex[] = [];
    for (const value of [1n, 2n]) {
      const hash = await chain.wallet.sendTransaction({ to: address, value });
      await chain.publicClient.waitForTransactionReceipt({ hash });
      hashes.push(hash);
    }
    await receiver.waitFor(() => requestsOf(id).length === 2, 10_000, 'two deliveries');
    const firstIds = requestsOf(id).map((request) => request.json.id);

    const rotated = await api('POST', `/v1/webhooks/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.signing_secret).not.toBe(created.body.signing_secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    const log = await api('GET', `/v1/webhooks/${id}/deliveries`);
    const redelivered = await api('POST', `/v1/webhooks/${id}/deliveries/${log.body.deliveries[1].id}/redeliver`);
    expect(redelivered.status).toBe(202);
    await receiver.waitFor(() => requestsOf(id).length === 3, 10_000, 'the redelivery');
    const again = requestsOf(id)[2]!;
    expect(again.json.id).toBe(log.body.deliveries[1].event_id);
    verifySignatures(again, rotated.body.signing_secret);
    verifySignatures(again, created.body.signing_secret);

    const receipt = await chain.publicClient.getTransactionReceipt({ hash: hashes[0]! });
    const replay = await api('POST', `/v1/webhooks/${id}/replay`, {
      from_block: Number(receipt.blockNumber),
      to_block: Number(receipt.blockNumber) + 1,
    });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ from_block: Number(receipt.blockNumber), queued: 2 });
    await receiver.waitFor(() => requestsOf(id).length === 5, 10_000, 'the replay');
    expect(
      requestsOf(id)
        .slice(3)
        .map((request) => request.json.id),
    ).toEqual(firstIds);

    const since = await api('POST', `/v1/webhooks/${id}/replay`, { since: new Date(Date.now() - 3600_000).toISOString() });
    expect(since.status).toBe(202);
    expect(since.body.queued).toBe(2);
    const badRange = await api('POST', `/v1/webhooks/${id}/replay`, { from_block: 10, to_block: 5 });
    expect(badRange.status).toBe(400);
    expect(badRange.body.error.message).toContain('to_block');
    const beyond = await api('POST', `/v1/webhooks/${id}/replay`, { from_block: 1_000_000 });
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.message).toMatch(/'from_block': is beyond the newest indexed block/);
    const neither = await api('POST', `/v1/webhooks/${id}/replay`, {});
    expect(neither.status).toBe(400);
    const badSince = await api('POST', `/v1/webhooks/${id}/replay`, { since: 'yesterday' });
    expect(badSince.body.error.message).toContain('since');
  });

  it('an operator disables a webhook; only an operator enables it again', async () => {
    const created = await api('POST', '/v1/webhooks', { url: receiver.url, chain: 'ethereum', event_type: 'new_block' });
    const disabled = await chain.service.admin('PATCH', `/admin/webhooks/${created.body.id}`, {
      status: 'disabled',
      reason: 'abuse report',
    });
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ status: 'disabled', status_reason: 'abuse report' });
    const listed = await chain.service.admin('GET', `/admin/webhooks?status=disabled`);
    expect(listed.body.webhooks.map((w: { id: string }) => w.id)).toContain(created.body.id);
    const owner = await api('PATCH', `/v1/webhooks/${created.body.id}`, { status: 'active' });
    expect(owner.status).toBe(403);
    expect(owner.body.error.message).toMatch(/operator/);
    expect((await api('GET', `/v1/webhooks/${created.body.id}`)).body.status).toBe('disabled');
    const enabled = await chain.service.admin('PATCH', `/admin/webhooks/${created.body.id}`, { status: 'active' });
    expect(enabled.body.status).toBe('active');
    expect((await chain.service.admin('PATCH', '/admin/webhooks/wh_none', { status: 'active' })).status).toBe(404);
    await api('DELETE', `/v1/webhooks/${created.body.id}`);
  });

  it('holds deliveries over the daily cap until the next UTC day, and says so', async () => {
    const capped = await chain.service.createKey({ plan: 'free', limits: { webhook_deliveries_per_day: 2 } });
    const address = '0x00000000000000000000000000000000000c0de3' as Address;
    const created = await call(capped.key, 'POST', '/v1/webhooks', {
      url: receiver.url,
      chain: 'ethereum',
      event_type: 'address_activity',
      config: { addresses: [address] },
    });
    for (const value of [1n, 2n, 3n]) {
      const hash = await chain.wallet.sendTransaction({ to: address, value });
      await chain.publicClient.waitForTransactionReceipt({ hash });
    }
    await receiver.waitFor(() => requestsOf(created.body.id).length === 2, 10_000, 'two deliveries');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(requestsOf(created.body.id)).toHaveLength(2);
    const waiting = await eventually(
      async () => {
        const got = await call(capped.key, 'GET', `/v1/webhooks/${created.body.id}/deliveries?status=pending`);
        return got.body.deliveries[0]?.note ? got : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the third delivery held by the cap' },
    );
    expect(waiting.body.total).toBe(1);
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(waiting.body.deliveries[0].next_attempt_at).toBe(tomorrow.toISOString());
    expect(waiting.body.deliveries[0].note).toMatch(/2 webhook deliveries a day/);
  });
});

describe('/v1/webhooks in production mode', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ settings: { mode: 'production' } });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
  });

  it('takes only https URLs to public hosts', async () => {
    const { key } = await service.createKey();
    for (const url of [
      'http://example.com/hook',
      'https://127.0.0.1/hook',
      'https://localhost/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest',
      'https://192.168.1.1/x',
    ]) {
      const response = await fetch(`${service.url}/v1/webhooks`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ url, chain: 'ethereum', event_type: 'new_block' }),
      });
      const body = (await response.json()) as { error: { message: string } };
      expect(response.status, url).toBe(400);
      expect(body.error.message).toMatch(/'url'/);
    }
    const ok = await fetch(`${service.url}/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://hooks.example.com/in', chain: 'ethereum', event_type: 'new_block' }),
    });
    expect(ok.status).toBe(201);
  });
});
