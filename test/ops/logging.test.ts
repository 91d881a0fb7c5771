import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLogWritten, startTestService, type TestService } from '../support/service.ts';

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

    await accessLogWritten();
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
    await accessLogWritten();
    const entry = lines
      // biome-ignore lint/suspicious/noExplicitAny: log lines are inspected freely
      .map((line) => JSON.parse(line) as Record<string, any>)
      .find((e) => e.reqId === 'trace-me-123' && e.msg === 'request');
    expect(entry).toMatchObject({ req: { method: 'GET', url: '/healthz' }, res: { status: 200 } });
    expect(typeof entry!.ms).toBe('number');
    expect(entry!.req.headers).toBeUndefined();
  });

  it('give the JSON-RPC fast path the same one line as a Fastify route: method, path, status, time, request id', async () => {
    const { key } = await t.createKey();
    const call = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };
    const fast = await t.rpc(key, call, undefined, { 'x-request-id': 'fast-path-line-1' });
    expect(fast.status).toBe(200);
    const slow = await fetch(`${t.url}/v1/gas/ethereum/prices`, {
      headers: { 'x-api-key': key, 'x-request-id': 'fastify-line-1' },
    });
    expect(slow.status).toBe(200);
    await accessLogWritten();
    // biome-ignore lint/suspicious/noExplicitAny: log lines are inspected freely
    const entries = lines.map((line) => JSON.parse(line) as Record<string, any>);
    const byId = (id: string) => entries.filter((e) => e.reqId === id && e.msg === 'request');
    expect(byId('fast-path-line-1')).toHaveLength(1);
    expect(byId('fastify-line-1')).toHaveLength(1);
    const [fastLine] = byId('fast-path-line-1');
    const [slowLine] = byId('fastify-line-1');
    expect(fastLine).toMatchObject({
      level: 30,
      req: { method: 'POST', url: '/v1/rpc/ethereum/devnet', ip: '127.0.0.1' },
      res: { status: 200 },
    });
    expect(slowLine).toMatchObject({
      level: 30,
      req: { method: 'GET', url: '/v1/gas/ethereum/prices', ip: '127.0.0.1' },
      res: { status: 200 },
    });
    expect(Object.keys(fastLine!).sort()).toEqual(Object.keys(slowLine!).sort());
    expect(Object.keys(fastLine!).sort()).toEqual(['level', 'ms', 'msg', 'req', 'reqId', 'res', 'time']);
    expect(JSON.stringify(fastLine)).not.toContain(key);
  });
});
