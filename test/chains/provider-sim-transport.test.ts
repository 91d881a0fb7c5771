import { afterEach, describe, expect, it } from 'vitest';
import {
  blockHash,
  call,
  cleanUp,
  isHead,
  isNotification,
  openClient,
  post,
  type Reply,
  result,
  simOverAnvil,
  sleep,
} from './support/sim-over-anvil.ts';

afterEach(cleanUp);

describe('batches', () => {
  it('answers an array in request order, each element by the same rules, each counted as a call', async () => {
    const { sim } = await simOverAnvil({ lagBlocks: 3 }, 10);
    const response = await post(sim.url, [
      call('eth_blockNumber', [], 'a'),
      call('eth_getBlockByNumber', ['0x9', false], 2),
      call('eth_chainId', [], 3),
      call('eth_getBlockByNumber', ['0x7', false], 4),
      call('eth_noSuchMethod', [], 5),
    ]);
    const replies = (await response.json()) as Reply[];
    expect(replies.map((reply) => reply.id)).toEqual(['a', 2, 3, 4, 5]);
    expect(replies.slice(0, 3).map((reply) => reply.result)).toEqual(['0x7', null, '0x7a69']);
    expect(replies[3]!.result).toMatchObject({ number: '0x7' });
    expect(replies[4]!.error?.code).toBe(-32601);
    expect([sim.calls(), sim.calls('eth_getBlockByNumber')]).toEqual([5, 2]);
  });
});

describe('WebSocket', () => {
  it('holds newHeads back until the real head is N blocks past them, and releases them when the lag drops', async () => {
    const { anvil, sim } = await simOverAnvil({ lagBlocks: 2 }, 5);
    const client = await openClient(sim.wsUrl);
    const subscription = await client.request('eth_subscribe', ['newHeads'], 1);
    expect(subscription.result).toMatch(/^0x[0-9a-f]{32}$/);
    expect((await client.request('eth_blockNumber', [], 2)).result).toBe('0x3');

    for (let i = 0; i < 3; i++) await result(anvil.url, 'evm_mine');
    await client.waitFor(isHead(6));
    await sleep(200);
    // Real head 8: this node's newest is 6.
    expect(client.heads()).toEqual([4, 5, 6]);
    const first = client.messages.find(isNotification);
    expect(first).toMatchObject({
      params: { subscription: subscription.result, result: { hash: await blockHash(anvil.url, 4) } },
    });

    sim.set({ lagBlocks: 0 });
    await client.waitFor(isHead(8));
    expect(client.heads()).toEqual([4, 5, 6, 7, 8]);

    expect((await client.request('eth_unsubscribe', [subscription.result], 3)).result).toBe(true);
    expect((await client.request('eth_unsubscribe', [subscription.result], 4)).result).toBe(false);
    await result(anvil.url, 'evm_mine');
    await sleep(200);
    expect(client.heads()).toEqual([4, 5, 6, 7, 8]);
  });

  it('counts and rate-limits WebSocket calls like HTTP ones, a refusal as a JSON-RPC error', async () => {
    const { sim } = await simOverAnvil({ rateLimit: { rps: 2, style: 'jsonrpc' } });
    const client = await openClient(sim.wsUrl);
    client.socket.send(JSON.stringify([1, 2, 3, 4].map((id) => call('eth_chainId', [], id))));
    const batch = (await client.waitFor((message) => Array.isArray(message))) as unknown as Reply[];
    expect(batch.map((reply) => reply.result ?? reply.error?.code)).toEqual(['0x7a69', '0x7a69', 429, 429]);
    expect([sim.calls('eth_chainId'), sim.refused()]).toEqual([4, 2]);
  });

  it('dropSockets terminates every client connection; a new one is served', async () => {
    const { sim } = await simOverAnvil();
    const clients = await Promise.all([openClient(sim.wsUrl), openClient(sim.wsUrl)]);
    sim.dropSockets();
    const codes = await Promise.race([Promise.all(clients.map((client) => client.closed)), sleep(2_000).then(() => 'open')]);
    expect(codes).toEqual([1006, 1006]);
    const again = await openClient(sim.wsUrl);
    expect((await again.request('eth_chainId', [], 1)).result).toBe('0x7a69');
  });
});
