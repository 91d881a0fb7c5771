import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

/**
 * The network before the input: on every published route with `{chain}` in its path, a test key asking
 * a mainnet is 403 and an unknown network 404, however malformed the rest of the request is (the
 * path's other parameters, a missing query parameter). Only a route the key may use validates its input.
 */
describe('a route’s network is checked before its input', () => {
  let t: TestService;
  let testKey: string;
  let routes: { method: string; path: string }[];
  beforeAll(async () => {
    t = await startTestService();
    testKey = (await t.createKey({ plan: 'enterprise' })).key;
    const document = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as { paths: Record<string, object> };
    routes = Object.entries(document.paths)
      .filter(([path]) => path.includes('{chain}') && !path.startsWith('/admin'))
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })));
  });
  afterAll(() => t?.stop());

  /** The route with malformed values in every other parameter, on the given network. */
  function malformed(path: string, network: string): string {
    const filled = path.replace(/\{(\w+)\}/g, (_whole, name: string) =>
      name === 'chain' ? 'ethereum' : name === 'network' ? network : name === 'apiKey' ? testKey : 'not-valid',
    );
    return path.includes('{network}') ? filled : `${filled}?network=${network}`;
  }

  it('a test key on a mainnet: 403 on every such route, before any 400', async () => {
    expect(routes.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const { method, path } of routes) {
      for (const [network, status] of [
        ['mainnet', 403],
        ['nowhere', 404],
      ] as const) {
        const response = await fetch(`${t.url}${malformed(path, network)}`, {
          method,
          headers: { 'x-api-key': testKey, 'content-type': 'application/json' },
          body: method === 'GET' ? undefined : '{"bad":',
          signal: AbortSignal.timeout(10_000),
        });
        const body = (await response.json()) as { error?: { status?: number } };
        if (response.status !== status || body.error?.status !== status)
          wrong.push(`${method} ${path} on ${network}: ${response.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('on a network the key may use, the same request is the 400 naming the parameter', async () => {
    const response = await fetch(`${t.url}/v1/rpc/ethereum/devnet/${testKey}/getNFTMetadata?tokenId=1`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/contractAddress/);
  });
});
