import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { jsonRpc } from '../support/json-rpc.ts';
import { metricSum } from '../support/metric-sum.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { deployEmitter, emitPing, pingTopic } from './support/emitter.ts';
import { connectRaw, eventually } from './support/ws-client.ts';

type Head = { number: string; hash: string; parentHash: string };

/**
 * A network listed with an HTTP URL only (many providers and self-hosted nodes expose no WebSocket):
 * its subscriptions are served from `latest` polled through the pool, with the same guarantees as
 * from an upstream WebSocket: every head once and in order, skipped blocks filled in, logs per block.
 */
describe('subscriptions on a network without an upstream WebSocket', () => {
  let anvil: Devnet;
  let database: TestDatabase;
  let t: TestService;
  let url: string;

  beforeAll(async () => {
    [anvil, database] = await Promise.all([startTestAnvil(), createTestDatabase()]);
    t = await startTestService({
      sharing: { anvil, database },
      chains: [
        {
          chain: 'ethereum',
          network: 'devnet',
          chain_id: 31337,
          testnet: true,
          block_time_s: 1,
          upstreams: [{ url: anvil.url }],
        },
      ],
      settings: { limits: { ws_feed_idle_ms: 1_000 } },
    });
    url = `${t.url.replace('http', 'ws')}/v1/ws/ethereum/devnet?apiKey=${(await t.createKey()).key}`;
  });
  afterAll(async () => {
    await t?.stop();
    await Promise.all([anvil?.stop(), database?.close()]);
  });

  const anvilCall = (method: string, params: unknown[] = []) => jsonRpc(anvil.url, method, params);
  /** The feed read where the chain is and subscribed: blocks from now on are its heads. */
  const feedStarted = () =>
    eventually(async () =>
      (await metricSum(t.url, 'blockyard_ws_upstream_subscriptions', { kind: 'newHeads' })) === 1 ? true : undefined,
    );

  it('newHeads: every block once, in order, those mined between two polls included', async () => {
    const client = await connectRaw(url);
    const subscription = (await client.call('eth_subscribe', ['newHeads'])).result as string;
    await feedStarted();
    const first = Number(await anvilCall('eth_blockNumber')) + 1;
    await anvilCall('evm_mine');
    await client.waitFor((m) => m.params?.subscription === subscription && Number(m.params.result.number) === first, 10_000);
    // Four blocks at once, faster than the feed polls: the skipped ones are filled in.
    await anvilCall('anvil_mine', ['0x4']);
    await client.waitFor((m) => m.params?.subscription === subscription && Number(m.params.result.number) === first + 4, 10_000);

    const heads = client.items(subscription) as Head[];
    expect(heads.map((head) => Number(head.number))).toEqual([first, first + 1, first + 2, first + 3, first + 4]);
    for (const head of heads) {
      const block = (await anvilCall('eth_getBlockByNumber', [head.number, false])) as Head;
      expect(head).toMatchObject({ hash: block.hash, parentHash: block.parentHash });
      expect(head).not.toHaveProperty('transactions');
    }
    client.close();
  });

  it('logs: a log of each block, and removed again by a reorg', async () => {
    const emitter = await deployEmitter(anvil.url, anvilCall);
    const client = await connectRaw(url);
    const subscription = (await client.call('eth_subscribe', ['logs', { address: emitter, topics: [pingTopic] }]))
      .result as string;
    await feedStarted();
    const snapshot = await anvilCall('evm_snapshot');
    const hash = await emitPing(anvil.url, emitter, 7n);
    const log = await client.waitFor((m) => m.params?.subscription === subscription, 10_000);
    expect(log.params.result).toMatchObject({ transactionHash: hash, address: emitter.toLowerCase(), removed: false });

    // A reorg: back to before the log, then another (empty) block at its height, seen by the next read.
    await anvilCall('evm_revert', [snapshot]);
    await anvilCall('evm_mine');
    const removed = await client.waitFor((m) => m.params?.subscription === subscription && m.params.result.removed, 10_000);
    expect(removed.params.result).toMatchObject({ transactionHash: hash, blockHash: log.params.result.blockHash });
    expect(client.items(subscription)).toHaveLength(2);
    client.close();
  });

  it('a feed nobody listens to is closed after limits.ws_feed_idle_ms, and the next subscriber starts another', async () => {
    const gauge = () => metricSum(t.url, 'blockyard_ws_upstream_subscriptions', { kind: 'newHeads' });
    const client = await connectRaw(url);
    const first = (await client.call('eth_subscribe', ['newHeads'])).result as string;
    await feedStarted();
    expect((await client.call('eth_unsubscribe', [first])).result).toBe(true);
    await eventually(async () => ((await gauge()) === 0 ? true : undefined), 10_000);

    const again = (await client.call('eth_subscribe', ['newHeads'])).result as string;
    await feedStarted();
    await anvilCall('evm_mine');
    const head = await client.waitFor((m) => m.params?.subscription === again, 10_000);
    expect(head.params.result.number).toBe(await anvilCall('eth_blockNumber'));
    client.close();
  });

  it('pending transactions: refused at once, naming what is missing', async () => {
    const client = await connectRaw(url);
    for (const params of [['newPendingTransactions'], ['alchemy_pendingTransactions', { toAddress: emitterless }]]) {
      const answer = await client.call('eth_subscribe', params);
      expect(answer.error?.code, params[0] as string).toBe(-32601);
      expect(answer.error.message).toMatch(/pending transactions need an upstream WebSocket \(ws_url\)/);
    }
    client.close();
  });
});

const emitterless = '0x00000000000000000000000000000000000000cc';
