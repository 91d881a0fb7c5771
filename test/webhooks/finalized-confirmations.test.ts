import type { Address, Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { callApi, postWebhook, type Receiver, startWebhookChain, type WebhookChain } from './support.ts';

/**
 * A network with `finality: tags` and a `finality_depth` (2) far from anvil's own tags (finalized =
 * head - 64): what the index counts final and when a `confirmations: "finalized"` delivery goes both
 * follow the node's tag, so a depth-only rule would fail every check here.
 */
describe('finality from the node: the index and webhook confirmations', () => {
  let setup: WebhookChain;
  let chain: IndexedChain;
  let receiver: Receiver;
  let key: string;
  const watched = '0x000000000000000000000000000000000000f1a1' as Address;

  const api = (method: string, path: string, body?: unknown) => callApi(chain.service.url, key, method, path, body);
  const finalizedOfNode = async () =>
    Number(BigInt(((await chain.anvilRpc('eth_getBlockByNumber', ['finalized', false])) as { number: Hex }).number));
  /** The index's saved progress once its final block is the node's tag (bounded). */
  const indexFinalReaches = (block: number) =>
    eventually(
      async () => {
        const { body } = await chain.service.admin('GET', '/admin/index/status');
        const row = body.networks.find((n: { network: string }) => n.network === 'ethereum/devnet');
        return row && row.final_block === block ? row : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: `the index's final block at ${block}` },
    );

  beforeAll(async () => {
    setup = await startWebhookChain({ finalityDepth: 2, chainSettings: { finality: 'tags' } });
    ({ chain, receiver, key } = setup);
  }, 120_000);
  afterAll(async () => {
    await setup?.stop();
  });

  it('the index counts final what the node calls finalized, not finality_depth below the head', async () => {
    await chain.anvilRpc('anvil_mine', ['0x50']);
    await chain.synced();
    const finalized = await finalizedOfNode();
    expect(finalized).toBe(Number(BigInt((await chain.anvilRpc('eth_blockNumber')) as Hex)) - 64);
    await indexFinalReaches(finalized);
  });

  it('confirmations "finalized": sent once the node finalized the block, not finality_depth later', async () => {
    const created = await postWebhook(chain.service.url, key, receiver.url, 'address_activity', {
      addresses: [watched],
      confirmations: 'finalized',
    });
    expect(created.status).toBe(201);
    expect(created.body.config.confirmations).toBe('finalized');
    const webhookId = created.body.id as string;
    const hash = await chain.wallet.sendTransaction({ to: watched, value: 9n });
    const { blockNumber } = await chain.publicClient.waitForTransactionReceipt({ hash, timeout: 10_000 });
    const sent = () => receiver.requests.filter((request) => request.json?.webhook_id === webhookId);

    // 10 blocks deep: final by depth 2, not by the node's tag (head - 64).
    await chain.anvilRpc('anvil_mine', ['0xa']);
    await chain.synced();
    await indexFinalReaches(await finalizedOfNode());
    await eventually(
      async () => ((await api('GET', `/v1/webhooks/${webhookId}/deliveries?status=pending`)).body.total === 1 ? true : undefined),
      { timeoutMs: 10_000, intervalMs: 50, what: 'the delivery waiting for finality' },
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sent()).toHaveLength(0);

    // Now the node finalizes the block: it goes.
    await chain.anvilRpc('anvil_mine', ['0x40']);
    await chain.synced();
    expect(await finalizedOfNode()).toBeGreaterThanOrEqual(Number(blockNumber));
    await receiver.waitFor(() => sent().length === 1, 15_000, 'the finalized delivery');
    expect(sent()[0]!.json.data.block_number).toBe(Number(blockNumber));
  });
});
