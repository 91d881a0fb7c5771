import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResponseChecker, type OpenApiDocument } from '../support/openapi.ts';
import { startTestService, type TestService } from '../support/service.ts';

describe('OpenAPI document', () => {
  let t: TestService;
  let doc: OpenApiDocument;
  let check: ReturnType<typeof createResponseChecker>;
  beforeAll(async () => {
    t = await startTestService();
    const response = await fetch(`${t.url}/v1/openapi.json`);
    expect(response.status).toBe(200);
    doc = (await response.json()) as OpenApiDocument;
    check = createResponseChecker(doc);
  });
  afterAll(() => t?.stop());

  async function call(
    method: string,
    path: string,
    template: string,
    init: { headers?: Record<string, string>; body?: string } = {},
  ) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
      body: init.body,
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as unknown;
    check(method, template, response.status, body);
    // biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected freely in tests
    return { status: response.status, body: body as Record<string, any> };
  }

  it('is OpenAPI 3.1 and every route declares its request and response schemas', () => {
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    expect(operations.map((o) => `${o.method.toUpperCase()} ${o.path}`)).toEqual(
      expect.arrayContaining([
        'POST /v1/rpc/{chain}/{network}',
        'POST /admin/accounts',
        'POST /admin/accounts/{id}/keys',
        'DELETE /admin/keys/{id}',
        'GET /healthz',
        'GET /livez',
      ]),
    );
    for (const { path, method, op } of operations) {
      expect(Object.keys(op.responses).length, `${method} ${path} responses`).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(op.responses)) {
        // 204 is the one answer without a body.
        if (status === '204') expect(response.content, `${method} ${path} 204 content`).toBeUndefined();
        else expect(response.content, `${method} ${path} ${status} content`).toBeDefined();
      }
      // Actions on a resource that take no input (send a test event, redeliver, rotate a secret) have no body.
      const action = /\/(test|redeliver|rotate-secret)$/.test(path);
      if (method === 'post' && !action) expect(op.requestBody, `${method} ${path} requestBody`).toBeDefined();
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        expect(
          op.parameters?.some((p) => p.in === 'path' && `{${p.name}}` === name),
          `${method} ${path} ${name}`,
        ).toBe(true);
      }
    }
  });

  it('every answer of every route matches the declared schema', async () => {
    const admin = { authorization: `Bearer ${t.adminToken}` };
    expect((await call('GET', '/healthz', '/healthz')).status).toBe(200);
    expect((await call('GET', '/livez', '/livez')).body).toEqual({ status: 'ok' });

    const account = await call('POST', '/admin/accounts', '/admin/accounts', {
      headers: admin,
      body: JSON.stringify({ name: 'schema', plan: 'free' }),
    });
    expect(account.status).toBe(201);
    expect((await call('POST', '/admin/accounts', '/admin/accounts', { headers: admin, body: '{}' })).status).toBe(400);
    expect((await call('POST', '/admin/accounts', '/admin/accounts', { body: '{}' })).status).toBe(401);
    expect((await call('GET', '/admin/accounts?limit=2', '/admin/accounts', { headers: admin })).status).toBe(200);
    expect((await call('GET', '/admin/accounts?limit=0', '/admin/accounts', { headers: admin })).status).toBe(400);
    expect((await call('GET', `/admin/accounts/${account.body.id}`, '/admin/accounts/{id}', { headers: admin })).status).toBe(
      200,
    );
    expect((await call('GET', '/admin/accounts/acc_none', '/admin/accounts/{id}', { headers: admin })).status).toBe(404);

    const keysPath = `/admin/accounts/${account.body.id}/keys`;
    const key = await call('POST', keysPath, '/admin/accounts/{id}/keys', {
      headers: admin,
      body: JSON.stringify({ name: 'k', environment: 'test' }),
    });
    expect(key.status).toBe(201);
    expect(
      (
        await call('POST', keysPath, '/admin/accounts/{id}/keys', {
          headers: admin,
          body: JSON.stringify({ name: 'k', environment: 'x' }),
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call('POST', '/admin/accounts/acc_none/keys', '/admin/accounts/{id}/keys', {
          headers: admin,
          body: JSON.stringify({ name: 'k', environment: 'test' }),
        })
      ).status,
    ).toBe(404);
    expect((await call('GET', keysPath, '/admin/accounts/{id}/keys', { headers: admin })).status).toBe(200);
    expect((await call('GET', `${keysPath}?page=-1`, '/admin/accounts/{id}/keys', { headers: admin })).status).toBe(400);

    const rpc = '/v1/rpc/{chain}/{network}';
    const apiKey = { 'x-api-key': key.body.key as string };
    const single = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
    expect((await call('POST', '/v1/rpc/ethereum/devnet', rpc, { headers: apiKey, body: single })).status).toBe(200);
    expect((await call('POST', '/v1/rpc/ethereum/devnet', rpc, { headers: apiKey, body: `[${single},${single}]` })).status).toBe(
      200,
    );
    expect((await call('POST', '/v1/rpc/ethereum/devnet', rpc, { headers: apiKey, body: '[]' })).status).toBe(400);
    expect((await call('POST', '/v1/rpc/ethereum/devnet', rpc, { body: single })).status).toBe(401);
    expect((await call('POST', '/v1/rpc/ethereum/mainnet', rpc, { headers: apiKey, body: single })).status).toBe(403);
    expect((await call('POST', '/v1/rpc/solana/devnet', rpc, { headers: apiKey, body: single })).status).toBe(404);
    const statuses = await Promise.all(
      Array.from({ length: 15 }, () =>
        call('POST', '/v1/rpc/ethereum/devnet', rpc, { headers: apiKey, body: single }).then((r) => r.status),
      ),
    );
    expect(statuses).toContain(429);

    expect((await call('DELETE', `/admin/keys/${key.body.id}`, '/admin/keys/{id}', { headers: admin })).status).toBe(200);
    expect((await call('DELETE', '/admin/keys/key_none', '/admin/keys/{id}', { headers: admin })).status).toBe(404);
  });

  it('serves the interactive reference at /docs', async () => {
    const response = await fetch(`${t.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toMatch(/swagger/i);
  });
});
