import { describe, expect, it } from 'vitest';
import { startSponsoredChain } from '../paymaster/support.ts';
import { prometheusServer, skipWithout } from '../support/requirements.ts';
import { adminTokenForTests } from '../support/service.ts';
import { startReceiver } from '../webhooks/support.ts';
import { connectRaw, type RawClient } from '../ws/support/ws-client.ts';
import { dashboardQueries, queriesWithoutSeries } from './dashboard-queries.ts';
import { startPrometheus } from './live-prometheus.ts';

/**
 * deploy/grafana/blockyard.json is checked against a live Prometheus, not just shipped: a running node
 * (indexer, bundler, webhooks on) is scraped every second while it serves calls, refuses some over a
 * plan's limit and delivers a webhook, and every query of every panel must return series.
 */
describe('the shipped Grafana dashboard (deploy/grafana/blockyard.json)', () => {
  skipWithout(prometheusServer);

  it("every panel's queries return series from a live Prometheus scraping a running node", async () => {
    // Indexer, bundler, verifying paymasters and WebSocket subscriptions: every panel has something to show.
    const { chain } = await startSponsoredChain({ upstreamWs: true });
    const receiver = await startReceiver();
    const prometheus = await startPrometheus(new URL(chain.service.url).host, adminTokenForTests);
    let busy: NodeJS.Timeout | undefined;
    let socket: RawClient | undefined;
    try {
      const { key } = await chain.service.createKey();
      const webhook = await fetch(`${chain.service.url}/v1/webhooks`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, chain: 'ethereum', network: 'devnet', event_type: 'new_block', config: {} }),
        signal: AbortSignal.timeout(10_000),
      });
      expect(webhook.status).toBe(201);
      // A free plan's 10 requests a second: 20 at once are partly refused (blockyard_rate_limited_total).
      const free = await chain.service.createKey({ plan: 'free' });
      const burst = await Promise.all(
        Array.from({ length: 20 }, () =>
          chain.service.rpc(free.key, { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        ),
      );
      expect(burst.map((response) => response.status)).toContain(429);
      // A WebSocket with a subscription (blockyard_ws_subscriptions has a series per kind once one exists).
      const wsBase = chain.service.url.replace(/^http/, 'ws');
      socket = await connectRaw(`${wsBase}/v1/ws/ethereum/devnet?apiKey=${encodeURIComponent(key)}`);
      const subscribed = await socket.call('eth_subscribe', ['newHeads']);
      expect(JSON.stringify(subscribed)).toMatch(/"result":"0x/);
      // Calls (cache misses then hits) and blocks keep coming while Prometheus scrapes.
      const call = (method: string, params: unknown[]) => chain.service.rpc(key, { jsonrpc: '2.0', id: 1, method, params });
      busy = setInterval(() => {
        void call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest']).catch(() => undefined);
        // An old block is final: answered from the cache after its first read (the latest one changes each time).
        void call('eth_getBlockByNumber', ['0x1', false]).catch(() => undefined);
        void chain.anvilRpc('anvil_mine', ['0x1']).catch(() => undefined);
      }, 250);
      await receiver.waitFor((requests) => requests.length > 0, 20_000, 'a new_block delivery');

      const expressions = dashboardQueries();
      expect(expressions.length).toBeGreaterThanOrEqual(18);
      expect(await queriesWithoutSeries(prometheus, expressions, 30_000)).toEqual([]);
    } finally {
      clearInterval(busy);
      socket?.close();
      await prometheus.stop();
      await receiver.close();
      await chain.service.stop();
    }
  }, 120_000);
});
