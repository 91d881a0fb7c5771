import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBundler } from '../fuzz/support/bundler-service.ts';
import { rawRequest } from '../support/raw-request.ts';
import { accessLogWritten, startTestService, type TestService } from '../support/service.ts';

const page = 'http://app.example';
const call = (method: string, id: unknown = 1, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

/**
 * The URL form of the JSON-RPC and bundler endpoints (`/v1/{rpc|bundler}/{chain}/{network}/{apiKey}`):
 * the same endpoint as with the key in a header, and the key never shows in a log line, a metric or an
 * error (every line the service writes, at debug, is captured and searched for it).
 */
describe('the API key in the path', () => {
  let t: TestService;
  let key: string;
  let keyPrefix: string;
  const lines: string[] = [];
  /** Every key this file uses: none may show anywhere. */
  const secrets: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestService({
      ...withBundler,
      settings: { ...withBundler.settings, cors_origins: [page] },
      logDestination: destination,
      logLevel: 'debug',
    });
    key = (await t.createKey()).key;
    keyPrefix = key.slice(0, 13);
    secrets.push(key);
  }, 60_000);
  afterAll(() => t?.stop());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    rawRequest(t.url, 'POST', path, {
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const rpcUrl = (k: string) => `/v1/rpc/ethereum/devnet/${k}`;

  it('answers JSON-RPC, single and batched, with the limit headers, as the header form does', async () => {
    const inPath = await post(rpcUrl(key), call('eth_chainId'));
    const inHeader = await post('/v1/rpc/ethereum/devnet', call('eth_chainId'), { 'x-api-key': key });
    expect(inPath.status).toBe(200);
    expect(inPath.json()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' });
    expect(inPath.text).toBe(inHeader.text);
    const limitHeaders = (answer: typeof inPath) => Object.keys(answer.headers).filter((name) => name.startsWith('x-ratelimit'));
    expect(limitHeaders(inPath)).toEqual(limitHeaders(inHeader));
    expect(limitHeaders(inPath)).toContain('x-ratelimit-reset');

    const batch = await post(`${rpcUrl(key)}/`, [call('eth_chainId', 1), call('eth_blockNumber', 2)]);
    expect(batch.status).toBe(200);
    expect(batch.json().map((item: { id: number }) => item.id)).toEqual([1, 2]);
  });

  it('the percent-encoded path (the Fastify route, not the fast path) answers the same', async () => {
    const fast = await post(rpcUrl(key), call('eth_chainId'));
    const routed = await post(`/v1/rpc/ethereum/%64evnet/${key}`, call('eth_chainId'));
    expect(routed.status).toBe(200);
    expect(routed.text).toBe(fast.text);
    const encodedKey = await post(`/v1/rpc/ethereum/devnet/${key.replace('_', '%5F')}`, call('eth_chainId'));
    expect(encodedKey.status).toBe(200);
  });

  it('a malformed, unknown or revoked key in the path: 401', async () => {
    const other = await t.createKey();
    const revoked = await t.admin('DELETE', `/admin/keys/${other.keyId}`);
    expect(revoked.status).toBeLessThan(300);
    const unknown = `svc_test_${'A'.repeat(44)}`;
    secrets.push(other.key, unknown);
    for (const bad of ['not-a-key', 'svc_test_short', unknown, other.key]) {
      for (const path of [rpcUrl(bad), `/v1/rpc/ethereum/%64evnet/${bad}`, `/v1/bundler/ethereum/devnet/${bad}`]) {
        const answer = await post(path, call('eth_chainId'));
        expect(answer.status, `${path}`).toBe(401);
        expect(answer.json().error.code).toBe('unauthorized');
      }
    }
  });

  it('a key in the path and a different one in a header: 401; the same key in both: answered', async () => {
    const other = (await t.createKey()).key;
    secrets.push(other);
    for (const headers of [{ 'x-api-key': other }, { authorization: `Bearer ${other}` }] as Record<string, string>[]) {
      for (const path of [rpcUrl(key), `/v1/rpc/ethereum/%64evnet/${key}`, `/v1/bundler/ethereum/devnet/${key}`]) {
        const answer = await post(path, call('eth_chainId'), headers);
        expect(answer.status, path).toBe(401);
        expect(answer.json().error.message).toBe('the request carries two different API keys');
      }
    }
    expect((await post(rpcUrl(key), call('eth_chainId'), { 'x-api-key': key })).status).toBe(200);
    expect(
      (await post(`/v1/bundler/ethereum/devnet/${key}`, call('eth_chainId'), { authorization: `Bearer ${key}` })).status,
    ).toBe(200);
  });

  it('the bundler endpoint in the URL form answers its own methods and the chain’s', async () => {
    const answer = await post(`/v1/bundler/ethereum/devnet/${key}`, [
      call('eth_chainId', 1),
      call('eth_supportedEntryPoints', 2),
    ]);
    expect(answer.status).toBe(200);
    const [chainId, entryPoints] = answer.json();
    expect(chainId.result).toBe('0x7a69');
    expect(Array.isArray(entryPoints.result)).toBe(true);
  });

  it('same scopes: a key without rpc:read is refused the read in the URL form too', async () => {
    const writeOnly = (await t.createKey({ scopes: ['rpc:write'] })).key;
    secrets.push(writeOnly);
    const inPath = await post(rpcUrl(writeOnly), call('eth_chainId'));
    const inHeader = await post('/v1/rpc/ethereum/devnet', call('eth_chainId'), { 'x-api-key': writeOnly });
    expect(inPath.text).toBe(inHeader.text);
    expect(inPath.json().error.message).toMatch(/scope/);
  });

  it('same limits: over its requests per second the URL form gets 429 with Retry-After', async () => {
    const limited = (await t.createKey({ plan: 'free', limits: { rps: 1 } })).key;
    secrets.push(limited);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await post(rpcUrl(limited), call('eth_chainId')));
    const refused = answers.find((answer) => answer.status === 429);
    expect(refused?.headers['retry-after']).toBeDefined();
  });

  it('a bad body, an unknown network and a path no route takes: the usual errors, the key not in them', async () => {
    const notJson = await post(rpcUrl(key), '{"jsonrpc":');
    const notJsonInHeader = await post('/v1/rpc/ethereum/devnet', '{"jsonrpc":', { 'x-api-key': key });
    expect(notJson.status).toBe(400);
    expect(notJson.text).toBe(notJsonInHeader.text);
    const unknown = await post(`/v1/rpc/ethereum/nowhere/${key}`, call('eth_chainId'));
    expect(unknown.status).toBe(404);
    const unrouted = await post(`${rpcUrl(key)}/getNothing`, call('eth_chainId'));
    expect(unrouted.status).toBe(404);
    expect(unrouted.json().error.message).toBe(`no route POST /v1/rpc/ethereum/devnet/${keyPrefix}…/getNothing`);
    // Authenticated by the key in its path, so it carries the key's limit headers.
    expect(unrouted.headers['x-ratelimit-reset']).toBeDefined();
    const unroutedBadKey = await post('/v1/rpc/ethereum/devnet/not-a-key/getNothing', call('eth_chainId'));
    expect(unroutedBadKey.status).toBe(401);
  });

  it('a browser preflight for the URL form follows cors_origins', async () => {
    const preflight = (origin: string) =>
      rawRequest(t.url, 'OPTIONS', rpcUrl(key), {
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const allowed = await preflight(page);
    expect(allowed.status).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(page);
    expect((await preflight('http://elsewhere.example')).status).toBe(403);
    const answer = await post(rpcUrl(key), call('eth_chainId'), { origin: page });
    expect(answer.headers['access-control-allow-origin']).toBe(page);
  });

  it('the OpenAPI document lists the URL forms; the metrics name the route, never the key', async () => {
    const doc = (await rawRequest(t.url, 'GET', '/v1/openapi.json')).json();
    for (const path of ['/v1/rpc/{chain}/{network}/{apiKey}', '/v1/bundler/{chain}/{network}/{apiKey}']) {
      const operation = doc.paths[path]?.post;
      expect(operation, path).toBeDefined();
      expect(operation.parameters.map((p: { name: string }) => p.name)).toContain('apiKey');
      expect(operation.security).toEqual([]);
    }
    const metrics = (await rawRequest(t.url, 'GET', '/metrics')).text;
    expect(metrics).toContain('route="/v1/rpc/:chain/:network/:apiKey"');
    expect(metrics).toContain('route="/v1/bundler/:chain/:network/:apiKey"');
    for (const secret of secrets) expect(metrics.includes(secret)).toBe(false);
  });

  it('no log line holds a key; the access log shows the path with the key’s prefix and …', async () => {
    await accessLogWritten();
    const log = lines.join('\n');
    expect(lines.length).toBeGreaterThan(20);
    for (const secret of secrets) {
      expect(log.includes(secret), `a log line holds ${secret.slice(0, 13)}…`).toBe(false);
      // Nor the part after its prefix, alone or percent-encoded.
      expect(log.includes(secret.slice(13))).toBe(false);
    }
    const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
    const urls = requests.map((entry) => entry.req.url as string);
    expect(urls).toContain(`/v1/rpc/ethereum/devnet/${keyPrefix}…`);
    expect(urls).toContain(`/v1/bundler/ethereum/devnet/${keyPrefix}…`);
    expect(urls).toContain(`/v1/rpc/ethereum/devnet/${keyPrefix}…/getNothing`);
    expect(urls).toContain('/v1/rpc/ethereum/devnet/no…');
    const statuses = new Set(requests.filter((entry) => entry.req.url.includes('…')).map((entry) => entry.res.status));
    for (const status of [200, 400, 401, 404, 429]) expect(statuses.has(status), `a ${status} line`).toBe(true);
  });
});
