import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { publicClientFor } from '../../src/chains/public-client.ts';
import { type ChainRegistry, createChainRegistry, type Network } from '../../src/chains/registry.ts';
import { buildChains } from '../../src/config/chain-settings.ts';
import { startTestAnvil } from '../support/anvil.ts';
import { type ProviderSim, startProviderSim } from '../support/provider-sim.ts';

/**
 * The service's own reads (the sponsorship settler, the bundler, token data) at `latest`: the node's
 * newest block, so a transaction that landed a moment ago is seen before the next head poll, but never
 * a block below the served tip, whichever node answers.
 */
describe("the service's public client at latest", () => {
  const stops: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  /** A pool over `upstreams` whose heads are polled once (at start), not again during the test. */
  async function poolNetwork(upstreams: { name: string; url: string; tier?: 'fallback' }[]): Promise<Network> {
    const entry = { chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, head_poll_ms: 600_000, upstreams };
    const chains: ChainRegistry = createChainRegistry(buildChains([entry], 1, 'public-client'), {
      metricsRegistry: new Registry(),
    });
    stops.push(() => chains.close());
    const network = chains.list()[0]!;
    const deadline = Date.now() + 10_000;
    while (network.pool.tip.value < 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    return network;
  }

  const mine = (url: string, blocks: number) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: [`0x${blocks.toString(16)}`] }),
      signal: AbortSignal.timeout(5_000),
    });

  it('reads the newest block of the node, above a served tip that no head poll has moved yet', async () => {
    const anvil = await startTestAnvil();
    stops.push(() => anvil.stop());
    await mine(anvil.url, 3);
    const network = await poolNetwork([{ name: 'own', url: anvil.url }]);
    const tip = network.pool.tip.value;
    expect(tip).toBeGreaterThanOrEqual(3);
    await mine(anvil.url, 2);
    const block = await publicClientFor(network).getBlock({ blockTag: 'latest' });
    expect(Number(block.number)).toBe(tip + 2);
  });

  it('reads the block at the served tip again when the node that answered is behind it', async () => {
    const anvil = await startTestAnvil();
    stops.push(() => anvil.stop());
    await mine(anvil.url, 6);
    const lagging: ProviderSim = await startProviderSim({ upstream: anvil.url });
    stops.push(() => lagging.close());
    // The primary answers honestly at the head poll, then falls 3 blocks behind; the pool still
    // believes it is at the tip, so `latest` goes to it first.
    const network = await poolNetwork([
      { name: 'primary', url: lagging.url },
      { name: 'backup', url: anvil.url, tier: 'fallback' },
    ]);
    const tip = network.pool.tip.value;
    expect(tip).toBeGreaterThanOrEqual(6);
    lagging.set({ lagBlocks: 3 });
    const before = lagging.calls('eth_getBlockByNumber');
    const block = await publicClientFor(network).getBlock({ blockTag: 'latest' });
    expect(Number(block.number)).toBe(tip);
    expect(lagging.calls('eth_getBlockByNumber')).toBeGreaterThan(before);
  });
});
