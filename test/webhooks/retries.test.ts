import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Address, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { callApi, postWebhook, type Receiver, startReceiver } from './support.ts';

const retrySchedule = [0.2, 0.3, 0.4];

describe('webhook retries, pausing, resuming, 410 and timeouts', () => {
  let chain: IndexedChain;
  let receiver: Receiver;
  let key: string;
  let accountId: string;
  let nextAddress = 0xa000;

  const api = (method: string, path: string, body?: unknown) => callApi(chain.service.url, key, method, path, body);
  /** A webhook on a fresh address of its own, so each test sees only its own deliveries. */
  const watch = async () => {
    const address = `0x${(nextAddress++).toString(16).padStart(40, '0')}` as Address;
    const created = await postWebhook(chain.service.url, key, receiver.url, 'address_activity', { addresses: [address] });
    expect(created.status).toBe(201);
    return { id: created.body.id as string, address };
  };
  const pay = async (to: Address, value = 1n) => {
    const hash = await chain.wallet.sendTransaction({ to, value });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    return hash;
  };
  const requestsOf = (id: string) => receiver.requests.filter((request) => request.json?.webhook_id === id);
  const waitForStatus = async (id: string, status: string) => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const got = await api('GET', `/v1/webhooks/${id}`);
      if (got.body.status === status) return got.body;
      if (Date.now() > deadline) throw new Error(`webhook ${id} still ${got.body.status}, not ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  beforeAll(async () => {
    chain = await startIndexedChain({ settings: { webhooks: { retry_schedule_s: retrySchedule, timeout_s: 1 } } });
    receiver = await startReceiver();
    ({ key, accountId } = await chain.service.createKey());
    const email = await chain.service.admin('PATCH', `/admin/accounts/${accountId}`, { email: 'ops@example.com' });
    expect(email.status).toBe(200);
    expect(email.body.email).toBe('ops@example.com');
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
    await receiver?.close();
  });

  it('retries a 500 on the schedule, then pauses and writes the notice; resuming delivers the backlog in order', async () => {
    let failing = true;
    const webhook = await watch();
    receiver.answer = (request) =>
      request.json?.webhook_id === webhook.id && failing ? { status: 500, body: 'down' } : { status: 200 };
    await pay(webhook.address);
    const attempts = 1 + retrySchedule.length;
    await receiver.waitFor(() => requestsOf(webhook.id).length === attempts, 15_000, `${attempts} attempts`);
    const times = requestsOf(webhook.id).map((request) => request.at);
    for (const [index, delay] of retrySchedule.entries()) {
      // Jitter is ±10%; the worker looks for due deliveries every 250 ms at most.
      expect(times[index + 1]! - times[index]!).toBeGreaterThanOrEqual(delay * 1000 * 0.9 - 20);
    }
    // Every attempt carries the same event id.
    expect(new Set(requestsOf(webhook.id).map((request) => request.json.id)).size).toBe(1);
    const paused = await waitForStatus(webhook.id, 'paused');
    expect(paused.status_reason).toMatch(/failed after 4 attempts: answered 500/);

    const log = await api('GET', `/v1/webhooks/${webhook.id}/deliveries?status=failed`);
    expect(log.body.total).toBe(1);
    expect(log.body.deliveries[0]).toMatchObject({ status: 'failed', attempt_count: 4 });
    expect(log.body.deliveries[0].attempts.map((a: { response: { status: number; body: string } }) => a.response)).toEqual(
      Array(4).fill({ status: 500, body: 'down' }),
    );

    // The notice, as an .eml file (no SMTP configured), to the account's email.
    const outbox = join(chain.service.dataDir, 'outbox');
    const noticeOf = (id: string) =>
      (existsSync(outbox) ? readdirSync(outbox) : [])
        .filter((name) => name.endsWith('.eml'))
        .map((name) => readFileSync(join(outbox, name), 'utf8'))
        .find((mail) => mail.includes(id));
    const deadline = Date.now() + 5_000;
    while (noticeOf(webhook.id) === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    const notice = noticeOf(webhook.id);
    expect(notice).toBeDefined();
    expect(notice).toMatch(/^To: ops@example\.com/m);
    expect(notice).toMatch(/Subject: Webhook wh_\S+ paused/);

    // While paused, matches are recorded, not sent.
    const before = requestsOf(webhook.id).length;
    const backlog = [await pay(webhook.address, 2n), await pay(webhook.address, 3n), await pay(webhook.address, 4n)];
    await chain.synced();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(requestsOf(webhook.id).length).toBe(before);
    const waiting = await api('GET', `/v1/webhooks/${webhook.id}/deliveries?status=paused`);
    expect(waiting.body.total).toBe(3);

    failing = false;
    const resumed = await api('PATCH', `/v1/webhooks/${webhook.id}`, { status: 'active' });
    expect(resumed.body.status).toBe('active');
    await receiver.waitFor(() => requestsOf(webhook.id).length === before + 3, 10_000, 'the backlog');
    const delivered = requestsOf(webhook.id)
      .slice(before)
      .map((request) => request.json.data);
    expect(delivered.map((data) => data.tx_hash)).toEqual(backlog);
    expect(delivered.map((data) => data.value)).toEqual(['2', '3', '4']);
  });

  it('a 410 disables the webhook; its owner may enable it again', async () => {
    const webhook = await watch();
    receiver.answer = (request) => (request.json?.webhook_id === webhook.id ? { status: 410 } : { status: 200 });
    await pay(webhook.address);
    const disabled = await waitForStatus(webhook.id, 'disabled');
    expect(disabled.status_reason).toMatch(/410/);
    expect(requestsOf(webhook.id)).toHaveLength(1);
    const log = await api('GET', `/v1/webhooks/${webhook.id}/deliveries`);
    expect(log.body.deliveries[0]).toMatchObject({ status: 'failed', attempt_count: 1 });
    const enabled = await api('PATCH', `/v1/webhooks/${webhook.id}`, { status: 'active' });
    expect(enabled.body.status).toBe('active');
  });

  it('a receiver that hangs times out and is retried; Retry-After is honoured', async () => {
    const webhook = await watch();
    let calls = 0;
    receiver.answer = (request) => {
      if (request.json?.webhook_id !== webhook.id) return { status: 200 };
      calls++;
      if (calls === 1) return { status: 200, hang: true };
      if (calls === 2) return { status: 503, headers: { 'retry-after': '2' } };
      return { status: 204 };
    };
    await pay(webhook.address, parseEther('0.001'));
    await receiver.waitFor(() => requestsOf(webhook.id).length === 3, 15_000, 'three attempts');
    const [first, second, third] = requestsOf(webhook.id).map((request) => request.at) as [number, number, number];
    // The hang ends at the 1 s timeout, then the 0.2 s retry; the 503 asked for 2 s.
    expect(second - first).toBeGreaterThanOrEqual(1000 + 180 - 50);
    expect(third - second).toBeGreaterThanOrEqual(1950);
    // The receiver sees the third request before the worker's transaction records it.
    const log = await eventually(
      async () => {
        const got = await api('GET', `/v1/webhooks/${webhook.id}/deliveries`);
        return got.body.deliveries[0]?.status === 'succeeded' ? got : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the delivery recorded as succeeded' },
    );
    const attempts = log.body.deliveries[0].attempts;
    expect(log.body.deliveries[0]).toMatchObject({ status: 'succeeded', attempt_count: 3 });
    expect(attempts[0]).toMatchObject({ response: { status: null }, error: 'no answer within 1 s' });
    expect(attempts[1]).toMatchObject({ response: { status: 503 } });
    expect(attempts[2]).toMatchObject({ response: { status: 204 }, error: null });
  });
});
