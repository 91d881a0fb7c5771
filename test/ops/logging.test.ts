import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

describe('logs', () => {
  let t: TestService;
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });

  beforeAll(async () => {
    t = await startTestService({ logDestination: destination, logLevel: 'trace' });
  });
  afterAll(() => t?.stop());

  it('never contain an API key or the admin token, whatever the request', async () => {
    const { key, keyId } = await t.createKey();
    const call = { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] };
    await t.rpc(key, call);
    await t.rpc(undefined, call, undefined, { authorization: `Bearer ${key}` });
    await t.rpc(key, 'not json');
    await t.rpc(key, call, `/v1/rpc/ethereum/devnet?apiKey=${key}`);
    await t.rpc(key, call, '/v1/rpc/nowhere/devnet');
    const wrongKey = `svc_test_${'Z'.repeat(44)}`;
    await t.rpc(wrongKey, call);
    await fetch(`${t.url}/admin/accounts`, { headers: { authorization: 'Bearer wrong-admin-token-value' } });
    await t.admin('GET', `/admin/accounts?limit=100&token=${t.adminToken}`);
    await t.admin('DELETE', `/admin/keys/${keyId}`);
    await t.rpc(key, call);

    const log = lines.join('\n');
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of [key, key.slice(9), wrongKey, t.adminToken, 'wrong-admin-token-value', t.service.devKey!.key]) {
      expect(log).not.toContain(secret);
    }
    expect(log).toContain('apiKey=[redacted]');
  });

  it('are JSON, one line per request, with the request id and status', async () => {
    const response = await fetch(`${t.url}/healthz`, { headers: { 'x-request-id': 'trace-me-123' } });
    expect(response.headers.get('x-request-id')).toBe('trace-me-123');
    const entry = lines
      // biome-ignore lint/suspicious/noExplicitAny: log lines are inspected freely
      .map((line) => JSON.parse(line) as Record<string, any>)
      .find((e) => e.reqId === 'trace-me-123' && e.msg === 'request');
    expect(entry).toMatchObject({ req: { method: 'GET', url: '/healthz' }, res: { status: 200 } });
    expect(typeof entry!.ms).toBe('number');
    expect(entry!.req.headers).toBeUndefined();
  });
});
