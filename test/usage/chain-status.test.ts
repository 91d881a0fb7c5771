import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

describe('GET /admin/chains', () => {
  let t: TestService;
  let anvilHost: string;
  beforeAll(async () => {
    t = await startTestService({
      chainsFor: (url) => {
        anvilHost = new URL(url).host;
        return [
          {
            chain: 'ethereum',
            network: 'devnet',
            chain_id: 31337,
            testnet: true,
            block_time_s: 0.2,
            indexer: { enabled: true, start_block: 0 },
            // A provider key in the URL must never be shown.
            upstreams: [{ url }, { url: `${url}/?apikey=secret-provider-key` }],
          },
          { chain: 'ethereum', network: 'mainnet', chain_id: 31337, upstreams: [{ url: `${url}/v2/secret-provider-key` }] },
        ];
      },
    });
    await t.service.indexers[0]!.waitFor(undefined, 30_000);
  }, 60_000);
  afterAll(() => t?.stop());

  it('lists every network with its upstreams by host, its indexer and whether it bundles', async () => {
    // A request through the pool gives the upstream a latency.
    const { key } = await t.createKey();
    expect((await t.rpc(key, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })).status).toBe(200);
    // The indexer saves its progress every second.
    let answer: { status: number; body: { networks: Record<string, unknown>[] } };
    const deadline = Date.now() + 10_000;
    do {
      answer = await t.admin('GET', '/admin/chains');
      const devnet = answer.body.networks[0] as { indexer: { indexed: number } };
      if (devnet.indexer.indexed >= 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } while (Date.now() < deadline);
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).not.toContain('secret-provider-key');
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
    const [devnet, mainnet] = answer.body.networks as Record<string, any>[];
    expect(devnet).toMatchObject({ chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, kind: 'evm' });
    expect(devnet!.upstreams).toHaveLength(2);
    for (const upstream of devnet!.upstreams) {
      expect(upstream).toMatchObject({ url_host: anvilHost, healthy: true, state: 'closed' });
    }
    expect(devnet!.upstreams.some((upstream: { latency_ms: number | null }) => typeof upstream.latency_ms === 'number')).toBe(
      true,
    );
    expect(devnet!.indexer).toMatchObject({ running: true });
    expect(devnet!.indexer.indexed).toBeGreaterThanOrEqual(0);
    expect(devnet!.indexer.behind).toBe(Math.max(0, devnet!.indexer.head - devnet!.indexer.indexed));
    expect(typeof devnet!.bundler).toBe('boolean');
    expect(mainnet).toMatchObject({ network: 'mainnet', testnet: false, indexer: null, bundler: false });
    expect(mainnet!.upstreams).toEqual([
      expect.objectContaining({ url_host: anvilHost, healthy: expect.any(Boolean), state: expect.any(String) }),
    ]);
  });

  it('is an admin route', async () => {
    const none = await fetch(`${t.url}/admin/chains`);
    expect(none.status).toBe(401);
    const { key } = await t.createKey();
    const withApiKey = await fetch(`${t.url}/admin/chains`, { headers: { authorization: `Bearer ${key}` } });
    expect(withApiKey.status).toBe(401);
  });
});
