import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRaw, eventually, type RawClient } from './support/ws-client.ts';
import type { WsProxy } from './support/ws-proxy.ts';
import { startWsTestService, type WsTestService } from './support/ws-service.ts';

describe('the subscription feed uses the pool: it moves to another upstream', () => {
  let s: WsTestService;
  let key: string;
  beforeAll(async () => {
    s = await startWsTestService({ upstreams: 3 });
    key = (await s.t.createKey()).key;
  });
  afterAll(() => s?.stop());

  const headNumbers = (client: RawClient, subscription: string) => client.items(subscription).map((h) => Number(h.number));
  const blockNumber = async () => Number(await s.anvilCall('eth_blockNumber'));
  /** The proxy Blockyard's upstream subscription goes through now (one connection open at a time). */
  const carrying = (): WsProxy | undefined => {
    const open = s.proxies.filter((proxy) => proxy.open > 0);
    return open.length === 1 ? open[0] : undefined;
  };
  /** A client subscribed to newHeads once the feed's upstream subscription is in place. */
  async function subscribedClient() {
    const client = await connectRaw(s.wsUrl(key));
    const { result: id } = await client.call('eth_subscribe', ['newHeads']);
    await eventually(async () =>
      (await s.metric('blockyard_ws_upstream_subscriptions', { kind: 'newHeads' })) === 1 ? true : undefined,
    );
    return { client, id: id as string };
  }

  async function expectUnbrokenChain(client: RawClient, id: string, from: number, to: number) {
    await eventually(() => (headNumbers(client, id).includes(to) ? true : undefined));
    const seen = headNumbers(client, id);
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => seen[0]! + i));
    expect(seen).toContain(from);
    const heads = client.items(id);
    for (let i = 1; i < heads.length; i++) expect(heads[i].parentHash).toBe(heads[i - 1].hash);
  }

  it('an upstream whose WebSocket is gone for good is replaced by another; no head missed', async () => {
    const { client, id } = await subscribedClient();
    await s.anvilCall('evm_mine');
    const first = await blockNumber();
    await eventually(() => (headNumbers(client, id).includes(first) ? true : undefined));
    const dead = carrying();
    expect(dead).toBeDefined();

    // Closed: every reconnect to it is refused from now on.
    await dead!.close();
    await s.anvilCall('evm_mine');
    await s.anvilCall('evm_mine');
    const next = await eventually(() => carrying());
    expect(next).not.toBe(dead);
    await s.anvilCall('evm_mine');
    await expectUnbrokenChain(client, id, first, await blockNumber());
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    client.close();
  });

  it('an upstream that answers pings but stops announcing heads is left for one that does', async () => {
    const { client, id } = await subscribedClient();
    await s.anvilCall('evm_mine');
    const first = await blockNumber();
    await eventually(() => (headNumbers(client, id).includes(first) ? true : undefined));
    const silent = carrying()!;
    expect(silent).toBeDefined();
    const switchesBefore = await s.metric('blockyard_ws_upstream_lag_switches_total');

    silent.mute();
    // The pool's head polls see these blocks; the feed does not, until it moves.
    await eventually(async () => {
      if (carrying() !== undefined && carrying() !== silent) return true;
      await s.anvilCall('evm_mine');
      await new Promise((resolve) => setTimeout(resolve, 300));
      return undefined;
    }, 20_000);
    await s.anvilCall('evm_mine');
    await expectUnbrokenChain(client, id, first, await blockNumber());
    expect(await s.metric('blockyard_ws_upstream_lag_switches_total')).toBe(switchesBefore + 1);
    client.close();
  });
});
