import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

// RFC 9110 15.5.6: a path that exists, asked with a method it does not answer, is 405 with an
// `Allow` header listing the methods it does answer; only a path no route has is 404. The rule is
// checked on every path the OpenAPI document publishes, for every method it does not list there.
const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
function concrete(path: string, apiKey: string): string {
  const values: Record<string, string> = { chain: 'ethereum', network: 'devnet', apiKey };
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) => values[name] ?? 'abc1');
}

function pattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`);
}

describe('a known path asked with another method', () => {
  let t: TestService;
  let key: string;
  let paths: [string, string[]][];
  beforeAll(async () => {
    t = await startTestService();
    key = (await t.createKey({ plan: 'enterprise' })).key;
    const document = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { paths: Record<string, object> };
    paths = Object.entries(document.paths).map(([path, operations]) => [
      path,
      Object.keys(operations).map((method) => method.toUpperCase()),
    ]);
  });
  afterAll(() => t?.stop());

  it('is 405 with Allow listing what the path answers, on every published path', async () => {
    const wrong: string[] = [];
    let asked = 0;
    for (const [path, documented] of paths) {
      const url = `${t.url}${concrete(path, key)}`;
      const headers: Record<string, string> = path.startsWith('/admin')
        ? { authorization: `Bearer ${t.adminToken}` }
        : { 'x-api-key': key };
      // `/v1/wallets/create` is also `/v1/wallets/{address}`: a method another published path takes here is not asked.
      const takenElsewhere = (method: string) =>
        paths.some(([other, its]) => other !== path && its.includes(method) && pattern(other).test(concrete(path, key)));
      for (const method of methods.filter((m) => !documented.includes(m) && !takenElsewhere(m))) {
        asked++;
        const response = await fetch(url, { method, headers, signal: AbortSignal.timeout(10_000) });
        const body = (await response.json()) as { error?: { code?: string; status?: number; message?: string } };
        const allow = (response.headers.get('allow') ?? '').split(', ');
        const problems = [
          response.status !== 405 && `status ${response.status}`,
          body.error?.code !== 'method_not_allowed' && `code ${body.error?.code}`,
          body.error?.status !== 405 && `body status ${body.error?.status}`,
          allow.includes(method) && `Allow lists ${method}`,
          !documented.every((m) => allow.includes(m)) && `Allow '${allow.join(', ')}' misses one of ${documented}`,
          response.headers.get('x-request-id') === null && 'no x-request-id',
        ].filter(Boolean);
        if (problems.length > 0) wrong.push(`${method} ${path}: ${problems.join('; ')}`);
      }
    }
    expect(asked).toBeGreaterThan(100);
    expect(wrong).toEqual([]);
  });

  it('a GET route also answers HEAD, and says so', async () => {
    const response = await fetch(`${t.url}/v1/webhooks`, { method: 'DELETE', headers: { 'x-api-key': key } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toBe('DELETE is not served at /v1/webhooks; it answers GET, HEAD, POST');
  });

  it('is authenticated first like any /v1 request, and the key in a path is masked in the message', async () => {
    const anonymous = await fetch(`${t.url}/v1/webhooks`, { method: 'DELETE' });
    expect(anonymous.status).toBe(401);
    const inPath = await fetch(`${t.url}/v1/rpc/ethereum/devnet/${key}`, { method: 'PUT' });
    expect(inPath.status).toBe(405);
    expect(inPath.headers.get('allow')).toContain('POST');
    const text = await inPath.text();
    expect(text).not.toContain(key);
    expect(text).toContain(`${key.slice(0, 13)}…`);
  });

  it('a path no route has stays 404', async () => {
    const response = await fetch(`${t.url}/v1/webhooks/abc1/nothing`, { method: 'GET', headers: { 'x-api-key': key } });
    expect(response.status).toBe(404);
    expect(response.headers.get('allow')).toBeNull();
  });
});
