import { describe, expect, it } from 'vitest';
import type { Devnet } from '../../src/chains/devnet.ts';
import { captureLog } from '../support/log-lines.ts';
import { metricSum } from '../support/metric-sum.ts';
import type { ProviderSim } from '../support/provider-sim.ts';
import type { TestService } from '../support/service.ts';
import { useTwoSimFeed } from './support/two-sim-feed.ts';
import { connectRaw, eventually } from './support/ws-client.ts';

/**
 * An upstream whose HTTP URL is the right chain but whose `ws_url` is another chain's node (a
 * mislabelled URL): its WebSocket is asked `eth_chainId` before anything is subscribed, refused with one
 * warn line and a metric, and the feed runs on the other upstream's WebSocket.
 */
describe('the identity of every upstream WebSocket connection', () => {
  const log = captureLog();
  let anvil: Devnet;
  let wrongChain: ProviderSim;
  let right: ProviderSim;
  let t: TestService;
  let key: string;

  useTwoSimFeed(
    {
      // The right one is slower over HTTP: the pool ranks the mislabelled upstream first, so its WebSocket is tried first.
      behaviours: [{ chainId: 1 }, { latencyMs: 40 }],
      upstreams: (anvil, [wrongChain, right]) => [
        { name: 'mislabelled', url: anvil.url, ws_url: `${wrongChain.wsUrl}/v3/secret-key` },
        { name: 'right', url: right.url, ws_url: right.wsUrl },
      ],
      logDestination: log.destination,
      logLevel: 'info',
    },
    (started) => {
      ({ anvil, t, key } = started);
      [wrongChain, right] = started.sims;
    },
  );

  const metric = (name: string, upstream: string) => metricSum(t.url, name, { upstream });

  it('refuses the other chain once (one warn line, one count), subscribes only on the right one, and stays there', async () => {
    const client = await connectRaw(`${t.url.replace('http', 'ws')}/v1/ws/ethereum/devnet?apiKey=${key}`);
    const { result: heads } = await client.call('eth_subscribe', ['newHeads']);
    await eventually(() => (right.calls('eth_subscribe') > 0 ? true : undefined));
    await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"evm_mine","params":[]}',
    });
    await eventually(() => (client.items(heads).length > 0 ? true : undefined));

    // Two more reconnects of the right one: the refused URL is not taken again, nor logged again.
    for (let drop = 0; drop < 2; drop++) {
      const before = right.calls('eth_subscribe');
      right.dropSockets();
      await eventually(() => (right.calls('eth_subscribe') > before ? true : undefined), 10_000);
    }

    expect(wrongChain.calls('eth_chainId')).toBeGreaterThanOrEqual(1);
    expect(wrongChain.calls('eth_subscribe')).toBe(0);
    const host = new URL(wrongChain.wsUrl).host;
    const refusals = log.warnings({ upstream: host, found: '0x1' });
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ network: 'ethereum/devnet', expected: '0x7a69 (31337)' });
    expect(refusals[0]!.msg).toContain('serves another chain');
    expect(JSON.stringify(log.lines)).not.toContain('secret-key');
    expect(await metric('blockyard_upstream_identity_refusals_total', 'mislabelled')).toBe(1);
    client.close();
  });
});
