import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const app = 'https://app.example';
const other = 'https://evil.example';
const blockNumber = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });

function preflight(url: string, origin: string, method = 'POST') {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type, x-api-key',
    },
    signal: AbortSignal.timeout(10_000),
  });
}

function post(url: string, headers: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: blockNumber,
    signal: AbortSignal.timeout(10_000),
  });
}

const csv = (value: string | null) => (value ?? '').split(',').map((part) => part.trim().toLowerCase());

describe('CORS, with cors_origins set', () => {
  let t: TestService;
  let off: TestService;
  let key: string;
  beforeAll(async () => {
    t = await startTestService({ settings: { cors_origins: [app] } });
    // A second process of the same deployment, with the default (CORS off).
    off = await startTestService({ sharing: t });
    key = (await t.createKey({ plan: 'growth' })).key;
  });
  afterAll(async () => {
    await off?.stop();
    await t?.stop();
  });

  // The plain path is answered by the JSON-RPC fast path, the percent-encoded one by the Fastify route.
  const paths = ['/v1/rpc/ethereum/devnet', '/v1/rpc/ethereum/%64evnet', '/v1/gas/ethereum/prices'];

  it.each(paths)('a preflight to %s from an allowed origin: 204 with the Access-Control headers', async (path) => {
    const response = await preflight(`${t.url}${path}`, app);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe(app);
    expect(response.headers.get('vary')).toMatch(/Origin/);
    expect(csv(response.headers.get('access-control-allow-methods'))).toEqual(expect.arrayContaining(['get', 'post']));
    expect(csv(response.headers.get('access-control-allow-headers'))).toEqual(
      expect.arrayContaining(['content-type', 'x-api-key', 'authorization']),
    );
    expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a preflight from another origin, or outside /v1, is refused with 403 and no Access-Control headers', async () => {
    const refused = await preflight(`${t.url}/v1/rpc/ethereum/devnet`, other);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    expect(await refused.json()).toEqual({
      error: { code: 'forbidden', message: expect.stringContaining(`origin ${other}`), status: 403 },
    });
    const admin = await preflight(`${t.url}/admin/accounts`, app);
    expect(admin.status).toBe(403);
    expect(admin.headers.get('access-control-allow-origin')).toBeNull();
  });

  it.each(paths.slice(0, 2))(
    'POST %s from an allowed origin carries Allow-Origin, Vary and the exposed headers',
    async (path) => {
      const response = await post(`${t.url}${path}`, { origin: app, 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe(app);
      expect(response.headers.get('vary')).toBe('Origin');
      expect(csv(response.headers.get('access-control-expose-headers'))).toEqual(
        expect.arrayContaining([
          'x-request-id',
          'x-ratelimit-limit',
          'x-ratelimit-remaining',
          'x-ratelimit-reset',
          'retry-after',
        ]),
      );
      expect(response.headers.get('x-ratelimit-limit')).toBe('100');
    },
  );

  it('errors carry them too (a page can read its 401), and other origins get none', async () => {
    for (const path of paths.slice(0, 2)) {
      const unauthorized = await post(`${t.url}${path}`, { origin: app });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.headers.get('access-control-allow-origin')).toBe(app);
      const foreign = await post(`${t.url}${path}`, { origin: other, 'x-api-key': key });
      expect(foreign.status).toBe(200);
      expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
      expect(foreign.headers.get('vary')).toBe('Origin');
    }
    const unroutable = await fetch(`${t.url}/v1/tokens/${'a'.repeat(120)}/metadata/0x00`, {
      headers: { origin: app, 'x-api-key': key },
      signal: AbortSignal.timeout(10_000),
    });
    expect(unroutable.status).toBe(414);
    expect(unroutable.headers.get('access-control-allow-origin')).toBe(app);
  });

  it('off by default: a preflight gets a clear 403 in the error format, responses no Access-Control headers', async () => {
    for (const path of paths) {
      const refused = await preflight(`${off.url}${path}`, app);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      const body = (await refused.json()) as { error: { code: string; message: string; status: number } };
      expect(body.error).toEqual({ code: 'forbidden', message: expect.stringContaining('cors_origins'), status: 403 });
    }
    for (const path of paths.slice(0, 2)) {
      const response = await post(`${off.url}${path}`, { origin: app, 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('vary')).toBeNull();
    }
  });
});
