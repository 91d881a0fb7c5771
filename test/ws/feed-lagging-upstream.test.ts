import { describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { jsonRpc } from '../support/json-rpc.ts';
import type { ProviderSim } from '../support/provider-sim.ts';
import type { TestService } from '../support/service.ts';
import { deployEmitter, emitPing, pingTopic } from './support/emitter.ts';
import { useTwoSimFeed } from './support/two-sim-feed.ts';
import { connectRaw, eventually, type RawClient } from './support/ws-client.ts';

/**
 * One feed over two upstreams of one chain, one of them behind (the provider simulator delays its
 * newHeads and answers `latest` as a lagging node does). Every switch between them (a dropped
 * connection) must leave clients with one chain whose heads only go up: nothing sent twice, nothing
 * taken for a reorg.
 */
describe('newHeads across a switch to a lagging upstream', () => {
  let anvil: Devnet;
  let honest: ProviderSim;
  let lagging: ProviderSim;
  let t: TestService;
  let key: string;

  useTwoSimFeed(
    {
      behaviours: [undefined, { lagBlocks: 2 }],
      upstreams: (_anvil, [honest, lagging]) => [
        { name: 'honest', url: honest.url, ws_url: honest.wsUrl },
        { name: 'lagging', url: lagging.url, ws_url: lagging.wsUrl },
      ],
      logLevel: process.env.DEBUG_LOG ?? 'silent',
      logDestination: process.stdout,
    },
    (started) => {
      ({ anvil, t, key } = started);
      [honest, lagging] = started.sims;
    },
  );

  const anvilCall = (method: string, params: unknown[] = []) => jsonRpc(anvil.url, method, params);
  const head = async () => Number(await anvilCall('eth_blockNumber'));

  /** Cuts the feed's upstream connection: it reconnects to the other simulator (the one that failed longer ago). */
  async function switchUpstream(): Promise<ProviderSim> {
    const before = [honest.calls('eth_subscribe'), lagging.calls('eth_subscribe')];
    honest.dropSockets();
    lagging.dropSockets();
    return eventually(() => {
      if (honest.calls('eth_subscribe') > before[0]!) return honest;
      if (lagging.calls('eth_subscribe') > before[1]!) return lagging;
      return undefined;
    }, 15_000);
  }

  function expectOneRisingChain(client: RawClient, subscription: string) {
    const heads = client.items(subscription) as { number: string; hash: string; parentHash: string }[];
    const numbers = heads.map((h) => Number(h.number));
    expect(numbers, `each head once, one higher than the one before: ${numbers.join(',')}`).toEqual(
      Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i),
    );
    for (let i = 1; i < heads.length; i++) expect(heads[i]!.parentHash).toBe(heads[i - 1]!.hash);
    return heads;
  }

  it('clients see each head once, rising, with its logs once and never removed, over six switches and a lag beyond the window', async () => {
    const emitter = await deployEmitter(anvil.url, anvilCall);
    const client = await connectRaw(`${t.url.replace('http', 'ws')}/v1/ws/ethereum/devnet?apiKey=${key}`);
    const { result: heads } = await client.call('eth_subscribe', ['newHeads']);
    const { result: logs } = await client.call('eth_subscribe', ['logs', { address: emitter, topics: [pingTopic] }]);
    let carrying = await eventually(() =>
      honest.calls('eth_subscribe') > 0 ? honest : lagging.calls('eth_subscribe') > 0 ? lagging : undefined,
    );
    const emitted: string[] = [];
    const seenUpTo = (number: number) => client.items(heads).some((h) => Number(h.number) === number);

    // Even rounds switch once the heads are in; odd ones at once, while heads and their logs are still being read.
    for (let round = 0; round < 6; round++) {
      emitted.push(await emitPing(anvil.url, emitter, BigInt(round)));
      await anvilCall('evm_mine');
      await anvilCall('evm_mine');
      const target = (await head()) - (carrying === lagging ? 2 : 0);
      if (round % 2 === 0) await eventually(() => (seenUpTo(target) ? true : undefined));
      carrying = await switchUpstream();
    }
    // The lagging node falls 150 blocks behind (more than the feed's 128-block window), and the feed moves to it.
    lagging.set({ lagBlocks: 150 });
    if (carrying === lagging) carrying = await switchUpstream();
    // In steps the window fills (a gap wider than the window is not filled: the feed restarts from the new head).
    for (let step = 0; step < 4; step++) {
      await anvilCall('anvil_mine', ['0x28']);
      const reached = await head();
      await eventually(() => (seenUpTo(reached) ? true : undefined), 15_000);
    }
    expect(await switchUpstream()).toBe(lagging);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    lagging.set({ lagBlocks: 0 });
    emitted.push(await emitPing(anvil.url, emitter, 99n));
    const last = await head();
    await eventually(() => (client.items(heads).some((h) => Number(h.number) === last) ? true : undefined), 15_000);

    const seen = expectOneRisingChain(client, heads);
    for (const h of seen.slice(-5)) {
      const canonical = (await anvilCall('eth_getBlockByNumber', [h.number, false])) as { hash: string };
      expect(h.hash).toBe(canonical.hash);
    }
    await eventually(() => (client.items(logs).length >= emitted.length ? true : undefined));
    const logItems = client.items(logs) as { transactionHash: string; removed: boolean }[];
    expect(logItems.map((log) => log.transactionHash)).toEqual(emitted);
    expect(logItems.every((log) => log.removed === false)).toBe(true);
    // Both upstreams carried the feed, several times each.
    expect(honest.calls('eth_subscribe')).toBeGreaterThanOrEqual(3);
    expect(lagging.calls('eth_subscribe')).toBeGreaterThanOrEqual(3);
    client.close();
  }, 60_000);
});
