import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { type Receiver, startReceiver, verifySignatures } from './support.ts';

const encryptionKey = 'cd'.repeat(32);
const watched = '0x00000000000000000000000000000000ad0e55e1' as Address;
const later = '0x00000000000000000000000000000000ad0e55e2' as Address;

/** An address list changed through one API process applies on the process that matches and delivers. */
describe('address changes across processes', () => {
  let chain: IndexedChain;
  let apiNode: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    const settings = { encryption_key: encryptionKey };
    chain = await startIndexedChain({ settings });
    apiNode = await startTestService({ sharing: chain.service, roles: 'api', chains: chain.chainsConfig, settings });
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await apiNode?.stop();
    await chain?.service.stop();
    await receiver?.close();
  });

  it('an address added and one removed through the other node apply from the next block', async () => {
    const { key } = await chain.service.createKey();
    const api = async (method: string, path: string, body: unknown) => {
      const response = await fetch(`${apiNode.url}${path}`, {
        method,
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      // biome-ignore lint/suspicious/noExplicitAny: responses are inspected freely
      return { status: response.status, body: (await response.json()) as any };
    };
    const created = await api('POST', '/v1/webhooks', {
      url: receiver.url,
      chain: 'ethereum',
      event_type: 'address_activity',
      config: { addresses: [watched] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const ofWebhook = () => receiver.requests.filter((request) => request.json?.webhook_id === id);
    const pay = async (to: Address, value: bigint) =>
      chain.publicClient.waitForTransactionReceipt({ hash: await chain.wallet.sendTransaction({ to, value }) });

    await pay(watched, 1n);
    await receiver.waitFor(() => ofWebhook().length === 1, 15_000, 'the first delivery');
    const changed = await api('PATCH', `/v1/webhooks/${id}/addresses`, { add: [later], remove: [watched] });
    expect(changed.body).toEqual({ id, address_count: 1 });
    await pay(watched, 2n);
    await pay(later, 3n);
    await receiver.waitFor(() => ofWebhook().length === 2, 15_000, 'the delivery for the added address');
    await chain.synced();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ofWebhook().map((request) => [request.json.data.to, request.json.data.value])).toEqual([
      [watched, '1'],
      [later, '3'],
    ]);
    verifySignatures(ofWebhook()[1]!, created.body.signing_secret);
  });
});
