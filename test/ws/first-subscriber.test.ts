import { describe, expect, it } from 'vitest';
import { deployEmitter, emitPing } from './support/emitter.ts';
import { connectRaw } from './support/ws-client.ts';
import { useWsServiceWithKey, type WsTestService } from './support/ws-service.ts';

/**
 * The network's first subscriber starts its feed; a block mined once the client has its subscription
 * id must reach it, however long the feed takes to start following the chain.
 */
describe('a subscription answered before its feed follows the chain would miss the next block', () => {
  let s: WsTestService;
  let key: string;
  useWsServiceWithKey((started) => ({ s, key } = started), { viaProxy: true });

  it('newHeads on a new feed whose node is slow to take its subscription: the block mined right after the answer is sent', async () => {
    s.proxy!.delaySubscribes(400);
    const client = await connectRaw(s.wsUrl(key));
    const from = performance.now();
    const { result: subscription } = await client.call('eth_subscribe', ['newHeads']);
    expect(subscription).toMatch(/^0x/);
    // The answer waited for the feed's own subscription to the node.
    expect(performance.now() - from).toBeGreaterThanOrEqual(350);
    await s.anvilCall('evm_mine');
    const { hash } = (await s.anvilCall('eth_getBlockByNumber', ['latest', false])) as { hash: string };
    const item = await client.waitFor((m) => m.params?.subscription === subscription && m.params.result.hash === hash, 5_000);
    expect(item.params.result.hash).toBe(hash);
    // The feed follows now: a later subscriber is answered at once.
    const again = performance.now();
    expect((await client.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/);
    expect(performance.now() - again).toBeLessThan(350);
    client.close();
  });

  it('newHeads and logs on a new polled feed (no upstream WebSocket): what is mined right after the answers is sent', async () => {
    const emitter = await deployEmitter(s.anvil.url, s.anvilCall);
    const live = (await s.t.createKey({ environment: 'live' })).key;
    const client = await connectRaw(s.wsUrl(live, 'ethereum/mainnet'));
    const heads: string = (await client.call('eth_subscribe', ['newHeads'])).result;
    const logs: string = (await client.call('eth_subscribe', ['logs', { address: emitter }])).result;
    await s.anvilCall('evm_mine');
    const { hash } = (await s.anvilCall('eth_getBlockByNumber', ['latest', false])) as { hash: string };
    const ping = await emitPing(s.anvil.url, emitter, 7n);
    const head = await client.waitFor((m) => m.params?.subscription === heads && m.params.result.hash === hash, 10_000);
    expect(head.params.result.hash).toBe(hash);
    const log = await client.waitFor((m) => m.params?.subscription === logs, 10_000);
    expect(log.params.result.transactionHash).toBe(ping);
    client.close();
  });
});
