import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { callApi, postWebhook, type Receiver, startReceiver, verifySignatures } from './support.ts';

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
    const api = (method: string, path: string, body: unknown) => callApi(apiNode.url, key, method, path, body);
    const created = await postWebhook(apiNode.url, key, receiver.url, 'address_activity', { addresses: [watched] });
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
