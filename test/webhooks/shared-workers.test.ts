import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { postWebhook, type Receiver, startReceiver } from './support.ts';

const encryptionKey = 'ab'.repeat(32);
const webhookCount = 6;
const payments = 60;

/** Two processes run the webhooks role on one database: the work is shared, nothing is sent twice, order holds. */
describe('two delivery processes on one database', () => {
  let chain: IndexedChain;
  let second: TestService;
  let receiver: Receiver;

  beforeAll(async () => {
    const settings = { encryption_key: encryptionKey, webhooks: { max_in_flight_per_endpoint: 1 } };
    chain = await startIndexedChain({ settings });
    second = await startTestService({ sharing: chain.service, roles: 'webhooks', chains: chain.chainsConfig, settings });
    receiver = await startReceiver();
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await chain?.service.stop();
    await receiver?.close();
  });

  it('delivers every event once, each webhook in chain order', async () => {
    const { key } = await chain.service.createKey();
    const address = '0x00000000000000000000000000000000005a4ed0' as Address;
    const ids: string[] = [];
    for (let i = 0; i < webhookCount; i++) {
      const config = { addresses: [address] };
      const created = (await postWebhook(chain.service.url, key, receiver.url, 'address_activity', config)).body as {
        id: string;
      };
      ids.push(created.id);
    }
    const hashes: Hex[] = [];
    for (let i = 0; i < payments; i++) hashes.push(await chain.wallet.sendTransaction({ to: address, value: BigInt(i + 1) }));
    await chain.synced();
    await receiver.waitFor((requests) => requests.length >= webhookCount * payments, 60_000, 'every delivery');
    await new Promise((resolve) => setTimeout(resolve, 500));

    expect(receiver.requests).toHaveLength(webhookCount * payments);
    const chainOrder = await Promise.all(
      hashes.map(async (hash) => {
        const receipt = await chain.publicClient.getTransactionReceipt({ hash });
        return { hash, position: Number(receipt.blockNumber) * 1000 + receipt.transactionIndex };
      }),
    );
    const expected = chainOrder.sort((a, b) => a.position - b.position).map((entry) => entry.hash);
    const delivered = async (service: TestService) =>
      (await service.service.ctx.metrics.registry.getSingleMetric('blockyard_webhook_attempts_total')!.get()).values.find(
        (value) => value.labels.outcome === 'delivered',
      )?.value ?? 0;
    const [first, other] = [await delivered(chain.service), await delivered(second)];
    expect(first + other).toBe(webhookCount * payments);
    console.log(`deliveries by process: ${first} and ${other}`);
    for (const id of ids) {
      const got = receiver.requests.filter((request) => request.json.webhook_id === id);
      expect(new Set(got.map((request) => request.json.id)).size).toBe(payments);
      expect(got.map((request) => request.json.data.tx_hash)).toEqual(expected);
    }
  });
});
