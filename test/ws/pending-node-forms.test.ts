import { describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { jsonRpc } from '../support/json-rpc.ts';
import { metricSum } from '../support/metric-sum.ts';
import type { PendingForm } from '../support/provider-sim/pending-relay.ts';
import type { ProviderSim } from '../support/provider-sim.ts';
import type { TestService } from '../support/service.ts';
import { devAccount } from './support/emitter.ts';
import { useTwoSimFeed } from './support/two-sim-feed.ts';
import { connectRaw, eventually, type RawClient } from './support/ws-client.ts';

const dev = devAccount.address.toLowerCase();
const third = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc';
const elsewhere = '0x00000000000000000000000000000000000000bb';

/**
 * `alchemy_pendingTransactions` on nodes that serve whole pending transactions in another form, or not
 * at all: the provider simulator in front of a real anvil answers `eth_subscribe newPendingTransactions`
 * as geth, Nethermind/Besu, a node that refuses any option, or one that ignores the flag and sends hashes.
 * Every one must give the subscriber the same whole transactions.
 */
describe('alchemy_pendingTransactions on every kind of node', () => {
  let anvil: Devnet;
  let sim: ProviderSim;
  let t: TestService;
  let key: string;

  useTwoSimFeed(
    {
      behaviours: [undefined, undefined],
      upstreams: (_anvil, [first]) => [{ name: 'node', url: first.url, ws_url: first.wsUrl }],
      logLevel: process.env.DEBUG_LOG ?? 'silent',
      logDestination: process.stdout,
    },
    (started) => {
      ({ anvil, t, key } = started);
      [sim] = started.sims;
    },
  );

  const anvilCall = (method: string, params: unknown[] = []) => jsonRpc(anvil.url, method, params);
  const fullGauge = () => metricSum(t.url, 'blockyard_ws_upstream_subscriptions', { kind: 'newPendingTransactionsFull' });
  const lookups = (outcome: string) => metricSum(t.url, 'blockyard_ws_pending_lookups_total', { outcome });

  /** The node becomes one of this kind; the feed's connection (held by the client's newHeads) is cut, so that it learns the node again. */
  async function becomeNode(form: PendingForm, client: RawClient): Promise<void> {
    sim.set({ pendingForm: form });
    await client.call('eth_subscribe', ['newHeads']);
    const gauge = () => metricSum(t.url, 'blockyard_ws_upstream_subscriptions', { kind: 'newHeads' });
    await eventually(async () => ((await gauge()) === 1 ? true : undefined), 15_000);
    const subscribes = sim.calls('eth_subscribe');
    sim.dropSockets();
    await eventually(() => (sim.calls('eth_subscribe') > subscribes ? true : undefined), 15_000);
  }

  const cases: [PendingForm, { looksUp: boolean }][] = [
    ['geth', { looksUp: false }],
    ['nethermind', { looksUp: false }],
    ['hashes-only', { looksUp: true }],
    ['ignores-flag', { looksUp: true }],
  ];

  it.each(cases)(
    'a %s node: whole transactions to the matching subscription, hashes to hashesOnly',
    async (form, { looksUp }) => {
      const client = await connectRaw(`${t.url.replace('http', 'ws')}/v1/ws/ethereum/devnet?apiKey=${key}`);
      await becomeNode(form, client);
      const foundBefore = await lookups('found');
      const toThird = (await client.call('eth_subscribe', ['alchemy_pendingTransactions', { toAddress: third }]))
        .result as string;
      const hashes = (await client.call('eth_subscribe', ['alchemy_pendingTransactions', { hashesOnly: true }])).result as string;
      expect(toThird).toMatch(/^0x/);
      await eventually(async () => ((await fullGauge()) === 1 ? true : undefined), 15_000);
      await anvilCall('evm_setAutomine', [false]);
      try {
        const one = (await anvilCall('eth_sendTransaction', [{ from: dev, to: third, value: '0x2' }])) as string;
        const two = (await anvilCall('eth_sendTransaction', [{ from: dev, to: elsewhere, value: '0x3' }])) as string;
        await client.waitFor((m) => m.params?.subscription === hashes && m.params.result === two, 15_000);
        await client.waitFor((m) => m.params?.subscription === toThird && m.params.result?.hash === one, 15_000);

        expect(client.items(hashes)).toEqual([one, two]);
        const items = client.items(toThird);
        expect(items).toHaveLength(1);
        const node = (await anvilCall('eth_getTransactionByHash', [one])) as Record<string, unknown>;
        expect(items[0]).toMatchObject({ hash: one, from: dev, to: third, value: '0x2', nonce: node.nonce, input: node.input });
        expect((await lookups('found')) - foundBefore).toBe(looksUp ? 2 : 0);
      } finally {
        await anvilCall('evm_mine');
        await anvilCall('evm_setAutomine', [true]);
      }
      client.close();
      await eventually(async () => ((await fullGauge()) === 0 ? true : undefined), 15_000);
    },
  );
});
