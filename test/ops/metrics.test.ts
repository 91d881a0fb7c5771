import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/** A loopback port with nothing listening on it: an upstream that is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function metricValue(text: string, name: string, labels: Record<string, string>): number {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('/metrics', () => {
  let t: TestService;
  beforeAll(async () => {
    const downPort = await closedPort();
    t = await startTestService({
      chains: [
        { chain: 'ethereum', network: 'devnet', chain_id: 31337, testnet: true, upstreams: [{ url: 'http://127.0.0.1:1' }] },
        { chain: 'ethereum', network: 'sepolia', chain_id: 11155111, upstreams: [{ url: `http://127.0.0.1:${downPort}` }] },
      ],
    });
  });
  afterAll(() => t?.stop());

  it('counts requests, latency, 429s and upstream errors', async () => {
    const { key } = await t.createKey({ plan: 'free' });
    const call = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
    const down = await t.rpc(key, call, '/v1/rpc/ethereum/sepolia');
    expect(down.status).toBe(200);
    const body = (await down.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32603);
    expect(body.error.message).toMatch(/upstream unavailable \(connection\)/);
    const statuses = (await Promise.all(Array.from({ length: 25 }, () => t.rpc(key, call, '/v1/rpc/ethereum/sepolia')))).map(
      (r) => r.status,
    );
    expect(statuses).toContain(429);

    const response = await fetch(`${t.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await response.text();
    const route = '/v1/rpc/:chain/:network';
    expect(metricValue(text, 'blockyard_http_requests_total', { route, status: '200' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(text, 'blockyard_http_requests_total', { route, status: '429' })).toBe(
      statuses.filter((s) => s === 429).length,
    );
    expect(metricValue(text, 'blockyard_rate_limited_total', { limit: 'rps' })).toBe(statuses.filter((s) => s === 429).length);
    // Identical calls under way at once are merged into one upstream call (the RPC cache), so at most one error each.
    const upstreamErrors = metricValue(text, 'blockyard_upstream_errors_total', { network: 'sepolia', reason: 'connection' });
    expect(upstreamErrors).toBeGreaterThanOrEqual(2);
    expect(upstreamErrors).toBeLessThanOrEqual(1 + statuses.filter((s) => s === 200).length);
    expect(metricValue(text, 'blockyard_http_request_duration_seconds_count', { route })).toBeGreaterThanOrEqual(26);
    expect(metricValue(text, 'blockyard_rpc_calls_total', { method: 'eth_blockNumber' })).toBeGreaterThanOrEqual(1);
  });

  it('/healthz is 503 and names the chain whose upstream is down', async () => {
    const response = await fetch(`${t.url}/healthz`);
    expect(response.status).toBe(503);
    const report = (await response.json()) as { status: string; checks: Record<string, string> };
    expect(report.status).toBe('unavailable');
    expect(report.checks.database).toBe('ok');
    expect(report.checks['chain ethereum/sepolia']).toMatch(/^error/);
  });
});
