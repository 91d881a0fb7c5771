import { createPublicClient, webSocket } from 'viem';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRaw, eventually, type RawClient } from './support/ws-client.ts';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

describe('one upstream subscription serves every client', () => {
  let s: WsTestService;
  let key: string;
  beforeAll(async () => {
    s = await startWsTestService({ viaProxy: true });
    key = (await s.t.createKey()).key;
  });
  afterAll(() => s?.stop());

  const headNumbers = (client: RawClient, subscription: string) => client.items(subscription).map((h) => Number(h.number));
  const blockNumber = async () => Number(await s.anvilCall('eth_blockNumber'));

  it('fans out: five clients, one upstream newHeads subscription', async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => connectRaw(s.wsUrl(key))));
    const ids = await Promise.all(clients.map(async (c) => (await c.call('eth_subscribe', ['newHeads'])).result as string));
    const viem = createPublicClient({ chain: foundry, transport: webSocket(s.wsUrl(key), { retryCount: 0 }) });
    const viemBlocks: bigint[] = [];
    const unwatch = viem.watchBlockNumber({ onBlockNumber: (n) => void viemBlocks.push(n) });
    await eventually(async () => ((await s.metric('blockyard_ws_subscriptions', { kind: 'newHeads' })) === 5 ? true : undefined));

    await s.anvilCall('evm_mine');
    const target = await blockNumber();
    await eventually(() => (clients.every((c, i) => headNumbers(c, ids[i]!).includes(target)) ? true : undefined));
    await eventually(() => (viemBlocks.includes(BigInt(target)) ? true : undefined));

    expect(s.proxy!.subscribes('newHeads')).toBe(1);
    expect(s.proxy!.connections).toBe(1);
    expect(await s.metric('blockyard_ws_upstream_subscriptions', { kind: 'newHeads' })).toBe(1);
    expect(await s.metric('blockyard_ws_connections')).toBe(5);
    unwatch();
    await (await viem.transport.getRpcClient()).close();
    for (const c of clients) c.close();
    await eventually(async () => ((await s.metric('blockyard_ws_connections')) === 0 ? true : undefined));
  });

  it('survives an upstream reconnect: heads keep arriving, none missed or repeated', async () => {
    const client = await connectRaw(s.wsUrl(key));
    const { result: id } = await client.call('eth_subscribe', ['newHeads']);
    await s.anvilCall('evm_mine');
    const first = await blockNumber();
    await eventually(() => (headNumbers(client, id).includes(first) ? true : undefined));

    s.proxy!.dropAll();
    // Mined while Blockyard's upstream socket is down: filled in after the reconnect.
    await s.anvilCall('evm_mine');
    await s.anvilCall('evm_mine');
    await eventually(() => (s.proxy!.subscribes('newHeads') === 2 ? true : undefined));
    await s.anvilCall('evm_mine');
    const last = await blockNumber();
    await eventually(() => (headNumbers(client, id).includes(last) ? true : undefined));

    const seen = headNumbers(client, id);
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => seen[0]! + i));
    expect(seen.slice(-4)).toEqual([first, first + 1, first + 2, first + 3]);
    const heads = client.items(id);
    for (let i = 1; i < heads.length; i++) expect(heads[i].parentHash).toBe(heads[i - 1].hash);
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    expect(await s.metric('blockyard_ws_upstream_reconnects_total')).toBeGreaterThanOrEqual(1);
    client.close();
  });

  it('closes a slow consumer with 4008 while another client keeps receiving', async () => {
    const slow = await connectRaw(s.wsUrl(key));
    const fast = await connectRaw(s.wsUrl(key));
    // 100 subscriptions (the cap) to the same heads: about 100 KB per block for the slow client.
    await Promise.all(Array.from({ length: 100 }, () => slow.call('eth_subscribe', ['newHeads'])));
    const { result: fastId } = await fast.call('eth_subscribe', ['newHeads']);
    // The slow client stops reading: its socket is paused, so the server's send buffer fills.
    (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();

    await eventually(async () => {
      if ((await s.metric('blockyard_ws_server_closes_total', { reason: 'slow_consumer' })) >= 1) return true;
      await s.anvilCall('anvil_mine', ['0x20']);
      return undefined;
    }, 25_000);

    await s.anvilCall('evm_mine');
    const target = await blockNumber();
    await eventually(() => (headNumbers(fast, fastId).includes(target) ? true : undefined));
    expect(fast.ws.readyState).toBe(fast.ws.OPEN);

    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const closed = await Promise.race([
      slow.closed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('no close')), 10_000)),
    ]);
    expect(closed).toEqual({ code: 4008, reason: expect.stringMatching(/slow consumer/) });
    fast.close();
  }, 60_000);
});
