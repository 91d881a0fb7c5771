import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { callApi, postWebhook, type Receiver, startWebhookChain, verifySignatures, type WebhookChain } from './support.ts';

describe('webhooks across reorgs and confirmations', () => {
  let setup: WebhookChain;
  let chain: IndexedChain;
  let receiver: Receiver;
  let key: string;
  let nextAddress = 0xd000;
  const secrets = new Map<string, string>();

  const api = (method: string, path: string, body?: unknown) => callApi(chain.service.url, key, method, path, body);
  const watch = async (config: Record<string, unknown> = {}) => {
    const address = `0x${(nextAddress++).toString(16).padStart(40, '0')}` as Address;
    const created = await postWebhook(chain.service.url, key, receiver.url, 'address_activity', {
      addresses: [address],
      ...config,
    });
    expect(created.status).toBe(201);
    secrets.set(created.body.id, created.body.signing_secret);
    return { id: created.body.id as string, address };
  };
  const requestsOf = (id: string) => receiver.requests.filter((request) => request.json?.webhook_id === id);
  const head = async () => Number(BigInt((await chain.anvilRpc('eth_blockNumber')) as Hex));

  beforeAll(async () => {
    setup = await startWebhookChain({ finalityDepth: 10 });
    ({ chain, receiver, key } = setup);
  }, 120_000);
  afterAll(async () => {
    await setup?.stop();
  });

  it('a reorg that drops a delivered event sends removed: true naming the original', async () => {
    const webhook = await watch();
    const snapshot = await chain.anvilRpc('evm_snapshot');
    const dropped = await chain.wallet.sendTransaction({ to: webhook.address, value: 77n });
    await receiver.waitFor(() => requestsOf(webhook.id).length === 1, 15_000, 'the original delivery');
    const original = requestsOf(webhook.id)[0]!.json;
    expect(original).toMatchObject({ removed: false, removes_event_id: null, data: { tx_hash: dropped, value: '77' } });

    await chain.anvilRpc('evm_revert', [snapshot]);
    // A longer branch without that transaction.
    for (let i = 0; i < 3; i++) await chain.anvilRpc('evm_mine');
    await chain.synced();
    await receiver.waitFor(() => requestsOf(webhook.id).length === 2, 15_000, 'the removal');
    const removal = requestsOf(webhook.id)[1]!;
    verifySignatures(removal, secrets.get(webhook.id)!);
    expect(removal.json).toMatchObject({
      event_type: 'address_activity',
      removed: true,
      removes_event_id: original.id,
      data: original.data,
    });
    expect(removal.json.id).not.toBe(original.id);
  });

  it('with confirmations N an event goes out once N blocks deep; one reorged out before that is never sent', async () => {
    const webhook = await watch({ confirmations: 3 });
    const hash = await chain.wallet.sendTransaction({ to: webhook.address, value: 5n });
    const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
    await chain.synced();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(requestsOf(webhook.id)).toHaveLength(0);
    // Matched and queued, waiting for its confirmations.
    await eventually(
      async () =>
        (await api('GET', `/v1/webhooks/${webhook.id}/deliveries?status=pending`)).body.total === 1 ? true : undefined,
      { timeoutMs: 10_000, intervalMs: 50, what: 'the queued delivery' },
    );

    for (let i = 0; i < 2; i++) await chain.anvilRpc('evm_mine');
    await chain.synced();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(requestsOf(webhook.id)).toHaveLength(0);
    await chain.anvilRpc('evm_mine');
    await chain.synced();
    await receiver.waitFor(() => requestsOf(webhook.id).length === 1, 10_000, 'the confirmed delivery');
    expect(requestsOf(webhook.id)[0]!.json.data.block_number).toBe(Number(receipt.blockNumber));
    expect(await head()).toBe(Number(receipt.blockNumber) + 3);

    // Reorged out at depth 1 of 3: cancelled, never sent, no removal either.
    const snapshot = await chain.anvilRpc('evm_snapshot');
    const dropped = await chain.wallet.sendTransaction({ to: webhook.address, value: 6n });
    await chain.publicClient.waitForTransactionReceipt({ hash: dropped });
    await chain.synced();
    await chain.anvilRpc('evm_revert', [snapshot]);
    for (let i = 0; i < 5; i++) await chain.anvilRpc('evm_mine');
    await chain.synced();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(requestsOf(webhook.id)).toHaveLength(1);
    const cancelled = await eventually(
      async () => {
        const got = await api('GET', `/v1/webhooks/${webhook.id}/deliveries?status=cancelled`);
        return got.body.total === 1 ? got : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the cancelled delivery' },
    );
    expect(cancelled.body.deliveries[0].note).toMatch(/reorg/);
  });
});
