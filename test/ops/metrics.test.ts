import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { closedPort } from '../support/closed-port.ts';
import { adminTokenForTests, startTestService, type TestService } from '../support/service.ts';

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

  it('with metrics_require_admin_token, /metrics answers 401 in the spec shape without the admin token; /healthz stays open', async () => {
    const guarded = await startTestService({ sharing: t, settings: { metrics_require_admin_token: true } });
    try {
      const withoutToken: Record<string, string>[] = [
        {},
        { authorization: 'Bearer not-the-admin-token' },
        { authorization: adminTokenForTests },
      ];
      for (const headers of withoutToken) {
        const refused = await fetch(`${guarded.url}/metrics`, { headers, signal: AbortSignal.timeout(10_000) });
        expect(refused.status).toBe(401);
        const body = (await refused.json()) as { error: { code: string; message: string; status: number } };
        expect(body.error).toMatchObject({ code: 'unauthorized', status: 401 });
        expect(body.error.message).toMatch(/admin token/);
      }
      const allowed = await fetch(`${guarded.url}/metrics`, {
        headers: { authorization: `Bearer ${adminTokenForTests}` },
        signal: AbortSignal.timeout(10_000),
      });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('blockyard_http_requests_total');
      expect([200, 503]).toContain((await fetch(`${guarded.url}/healthz`)).status);
    } finally {
      await guarded.stop();
    }
  });
});

describe('metrics_require_admin_token', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'blockyard-metrics-config-'));
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));
  const load = (env: Record<string, string>) => loadConfig({ env: { BLOCKYARD_DATA_DIR: cwd, ...env }, cwd });

  it('is on by default in production mode, off in development, and BLOCKYARD_METRICS_REQUIRE_ADMIN_TOKEN sets it', () => {
    expect(load({}).metricsRequireAdminToken).toBe(false);
    expect(load({ BLOCKYARD_MODE: 'production' }).metricsRequireAdminToken).toBe(true);
    expect(load({ BLOCKYARD_MODE: 'production', BLOCKYARD_METRICS_REQUIRE_ADMIN_TOKEN: 'false' }).metricsRequireAdminToken).toBe(
      false,
    );
    expect(load({ BLOCKYARD_METRICS_REQUIRE_ADMIN_TOKEN: 'true' }).metricsRequireAdminToken).toBe(true);
  });
});
