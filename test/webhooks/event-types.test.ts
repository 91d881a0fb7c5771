import { type Address, type Hex, parseAbi, parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { deployTestContracts, type TestContracts } from '../support/contracts.ts';
import {
  callApi,
  type ReceivedRequest,
  type Receiver,
  startWebhookChain,
  verifySignatures,
  type WebhookChain,
} from './support.ts';

const watched = '0x000000000000000000000000000000000000beef' as Address;
const forwardedTo = '0x000000000000000000000000000000000000f00d';
const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** Runtime code that forwards msg.value to `to` with a CALL: a contract that makes internal transfers. */
function forwarderInitCode(to: string): Hex {
  const runtime = `600060006000600034${'73'}${to.slice(2)}5af100`;
  const length = (runtime.length / 2).toString(16).padStart(2, '0');
  return `0x60${length}600c60003960${length}6000f3${runtime}`;
}

describe('every webhook event type, for real transactions on the devnet', () => {
  let setup: WebhookChain;
  let chain: IndexedChain;
  let contracts: TestContracts;
  let receiver: Receiver;
  let key: string;
  let forwarder: Address;
  const secrets = new Map<string, { secret: string; type: string; format: 'snake_case' | 'camelCase' }>();

  const api = (method: string, path: string, body?: unknown) => callApi(chain.service.url, key, method, path, body);
  const create = async (event_type: string, config: Record<string, unknown>, payload_format?: 'camelCase') => {
    const created = await api('POST', '/v1/webhooks', {
      url: receiver.url,
      chain: 'ethereum',
      event_type,
      config,
      ...(payload_format ? { payload_format } : {}),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.signing_secret).toMatch(/^whsec_/);
    secrets.set(created.body.id, {
      secret: created.body.signing_secret,
      type: created.body.event_type,
      format: payload_format ?? 'snake_case',
    });
    return created.body.id as string;
  };
  const deliveriesOf = (id: string) =>
    receiver.requests.filter((request) => (request.json.webhook_id ?? request.json.webhookId) === id);

  beforeAll(async () => {
    setup = await startWebhookChain({ settings: { webhooks: { retry_schedule_s: [0.2], pending_poll_ms: 50 } } });
    ({ chain, receiver, key } = setup);
    contracts = await deployTestContracts(chain.service.anvil.url);
    const deployed = await chain.wallet.deployContract({ abi: [], bytecode: forwarderInitCode(forwardedTo) });
    forwarder = (await chain.publicClient.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
    await chain.synced();
  }, 120_000);
  afterAll(async () => {
    await setup?.stop();
  });

  it('delivers all eight types with their payloads, signed for both verifiers', async () => {
    const ids = {
      address: await create('address_activity', { addresses: [watched] }),
      token: await create('token_transfer', { contracts: [contracts.token] }),
      tokenB: await create('TOKEN_TRANSFER', { contracts: [contracts.token], min_value: '5' }, 'camelCase'),
      nft: await create('NFT_ACTIVITY', { contracts: [contracts.nft], token_ids: ['7'] }),
      log: await create('log', { addresses: [contracts.priceFeed] }),
      internal: await create('internal_transfer', { to: [forwardedTo] }),
      block: await create('new_block', {}),
      pending: await create('pending_transaction', { to: [watched] }),
      mined: '',
    };
    // The pending-transaction feed installs its upstream filter within a poll (50 ms here) of the
    // webhook's creation; a filter reports what arrives after it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await chain.anvilRpc('evm_setAutomine', [false]);
    try {
      const send = await chain.wallet.sendTransaction({ to: watched, value: parseEther('1') });
      ids.mined = await create('mined_transaction', { tx_hashes: [send] });
      // The pending transaction is seen in the mempool before any block holds it.
      await receiver.waitFor(() => deliveriesOf(ids.pending).length === 1, 15_000, 'the pending_transaction delivery');
      await chain.wallet.writeContract({
        address: contracts.token,
        abi: parseAbi(['function mint(address,uint256)']),
        functionName: 'mint',
        args: [watched, 5n],
      });
      await chain.wallet.writeContract({
        address: contracts.nft,
        abi: parseAbi(['function mint(address,uint256)']),
        functionName: 'mint',
        args: [watched, 7n],
      });
      await chain.wallet.writeContract({
        address: contracts.priceFeed,
        abi: parseAbi(['function setAnswer(int256)']),
        functionName: 'setAnswer',
        args: [3100n * 10n ** 8n],
      });
      await chain.wallet.sendTransaction({ to: forwarder, value: 123n });
      await chain.anvilRpc('evm_mine');
    } finally {
      await chain.anvilRpc('evm_setAutomine', [true]);
    }
    const receipt = await chain.publicClient.getTransactionReceipt({ hash: deliveriesOf(ids.pending)[0]!.json.data.tx_hash });
    const block = Number(receipt.blockNumber);
    await receiver.waitFor(
      () =>
        [ids.token, ids.tokenB, ids.nft, ids.log, ids.internal, ids.mined].every((id) => deliveriesOf(id).length > 0) &&
        // The watched address has two events in the block (the ETH payment and a token transfer), delivered
        // one after the other: waiting for the first alone raced the second.
        ['external', 'token'].every((category) => deliveriesOf(ids.address).some((r) => r.json.data.category === category)) &&
        deliveriesOf(ids.block).some((r) => r.json.data.block_number === block),
      20_000,
      'a delivery for every type',
    );

    for (const request of receiver.requests) {
      const { secret, format } = secrets.get(request.json.webhook_id ?? request.json.webhookId)!;
      verifySignatures(request, secret, format);
    }
    const only = (id: string): ReceivedRequest => {
      const got = deliveriesOf(id);
      expect(got.length, `deliveries of ${secrets.get(id)?.type}`).toBeGreaterThan(0);
      return got[0]!;
    };
    const common = { chain: 'ethereum', network: 'devnet', block_number: block, block_hash: receipt.blockHash };

    const pending = only(ids.pending).json;
    expect(pending).toMatchObject({ event_type: 'pending_transaction', test: false, removed: false, removes_event_id: null });
    expect(pending.data).toMatchObject({
      to: watched,
      value: parseEther('1').toString(),
      from: chain.wallet.account.address.toLowerCase(),
    });
    expect(pending.id).toMatch(/^evt_/);

    const mined = only(ids.mined).json;
    expect(mined.event_type).toBe('mined_transaction');
    expect(mined.data).toMatchObject({ ...common, tx_hash: pending.data.tx_hash, status: 'success', to: watched });

    const activity = deliveriesOf(ids.address).map((r) => r.json.data);
    expect(activity).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          ...common,
          category: 'external',
          asset: 'ETH',
          contract: null,
          direction: 'incoming',
          to: watched,
          value: parseEther('1').toString(),
        }),
        expect.objectContaining({
          ...common,
          category: 'token',
          asset: 'TST',
          contract: contracts.token.toLowerCase(),
          direction: 'incoming',
          to: watched,
          value: '5',
        }),
      ]),
    );

    const token = only(ids.token).json;
    expect(token).toMatchObject({ event_type: 'token_transfer', webhook_id: ids.token });
    expect(token.data).toMatchObject({
      ...common,
      contract: contracts.token.toLowerCase(),
      from: '0x0000000000000000000000000000000000000000',
      to: watched,
      value: '5',
      symbol: 'TST',
      decimals: 18,
    });

    const tokenB = only(ids.tokenB);
    expect(tokenB.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(tokenB.headers['x-webhook-event']).toBe('TOKEN_TRANSFER');
    expect(tokenB.json).toMatchObject({ type: 'TOKEN_TRANSFER', chain: 'ethereum', chainId: 31337, webhookId: ids.tokenB });
    expect(tokenB.json.createdAt).toMatch(/\.\d{3}Z$/);
    expect(tokenB.json.data).toMatchObject({
      blockNumber: block,
      transactionHash: token.data.tx_hash,
      logIndex: token.data.log_index,
      token: { address: contracts.token.toLowerCase(), symbol: 'TST', decimals: 18 },
      value: '5',
      valueFormatted: '0.000000000000000005',
    });

    const nft = only(ids.nft).json;
    expect(nft.event_type).toBe('nft_transfer');
    expect(nft.data).toMatchObject({
      ...common,
      contract: contracts.nft.toLowerCase(),
      token_id: '7',
      standard: 'ERC721',
      quantity: 1,
      to: watched,
    });
    expect(nft.data).toHaveProperty('metadata');

    const log = only(ids.log).json;
    expect(log.data).toMatchObject({ ...common, address: contracts.priceFeed.toLowerCase() });
    expect(log.data.topics[0]).not.toBe(transferTopic);

    const internal = only(ids.internal).json;
    expect(internal.data).toMatchObject({
      ...common,
      from: forwarder.toLowerCase(),
      to: forwardedTo,
      value: '123',
      call_type: 'call',
      trace_path: '0',
    });

    const newBlock = deliveriesOf(ids.block).find((r) => r.json.data.block_number === block)!.json;
    expect(newBlock.data).toMatchObject({ ...common, hash: receipt.blockHash, transaction_count: 5 });
    expect(typeof newBlock.data.timestamp).toBe('string');

    // Each event's delivery is in the log with the request and the receiver's answer.
    const log200 = await eventually(
      async () => {
        const got = await api('GET', `/v1/webhooks/${ids.token}/deliveries`);
        return got.body.deliveries[0]?.status === 'succeeded' ? got : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'the delivery recorded as succeeded' },
    );
    expect(log200.status).toBe(200);
    expect(log200.body.deliveries[0]).toMatchObject({ event_id: token.id, status: 'succeeded', attempt_count: 1 });
    expect(log200.body.deliveries[0].attempts[0]).toMatchObject({
      attempt: 1,
      response: { status: 200, body: 'ok' },
      error: null,
    });
    expect(JSON.parse(log200.body.deliveries[0].attempts[0].request.body)).toEqual(token);
  });
});
