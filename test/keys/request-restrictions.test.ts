import { createPublicClient, HttpRequestError, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { restrictKey } from '../support/key-restrictions.ts';
import { withinOneSecond } from '../support/one-second.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';

const serverWide = 'https://server-wide.example';
const chainIdCall = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };

/** viem over HTTP, as a browser page or a backend would call, with its own headers. */
function viemClient(url: string, headers: Record<string, string>) {
  return createPublicClient({ transport: http(url, { fetchOptions: { headers }, retryCount: 0 }) });
}

/** The HTTP status and the error message of a refused viem call. */
async function refusal(call: Promise<unknown>): Promise<{ status: number | undefined; message: string }> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HttpRequestError);
  const http = error as HttpRequestError;
  // viem puts the answer's `error` object in `details`.
  return { status: http.status, message: JSON.parse(http.details).message };
}

function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }) {
  return fetch(url, {
    method: init.method ?? 'POST',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(10_000),
  });
}

describe("a key's origins and client addresses, wherever the key is used", () => {
  let t: TestService;
  /** A second process of the same deployment behind a proxy on 127.0.0.1 (trust_proxy). */
  let proxied: TestService;
  beforeAll(async () => {
    t = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0], cors_origins: [serverWide] },
      chainsFor: (anvilUrl) => [devnetChain(anvilUrl, { bundler: { enabled: true } })],
    });
    proxied = await startTestService({
      sharing: t,
      settings: { bundler_keys: devnetExecutorKeys[0], trust_proxy: ['127.0.0.1', '10.0.0.0/8'] },
      chainsFor: (anvilUrl) => [devnetChain(anvilUrl, { bundler: { enabled: true } })],
    });
  });
  afterAll(async () => {
    await proxied?.stop();
    await t?.stop();
  });

  const keyWith = async (restrictions: Parameters<typeof restrictKey>[2]) => {
    const created = await t.createKey({ plan: 'growth' });
    await restrictKey(t, created.keyId, restrictions);
    return created.key;
  };

  describe('origins', () => {
    let key: string;
    beforeAll(async () => {
      key = await keyWith({ origins: ['https://app.example.com', 'https://*.example.org'] });
    });
    const rpcUrl = () => `${t.url}/v1/rpc/ethereum/devnet`;

    it.each(['https://app.example.com', 'https://APP.example.com:443', 'https://a.example.org', 'https://a.b.example.org'])(
      'viem from %s passes',
      async (origin) => {
        const client = viemClient(rpcUrl(), { 'x-api-key': key, origin });
        expect(await client.getChainId()).toBe(31337);
      },
    );

    it.each([
      ['https://evil.example', "the origin 'https://evil.example' is not listed"],
      ['https://example.org', "the origin 'https://example.org' is not listed"],
      ['http://app.example.com', "the origin 'http://app.example.com' is not listed"],
    ])('viem from %s: 403 naming it', async (origin, what) => {
      const answer = await refusal(viemClient(rpcUrl(), { 'x-api-key': key, origin }).getChainId());
      expect(answer).toEqual({ status: 403, message: `refused by this API key's restrictions.origins: ${what}` });
    });

    it('viem without an Origin header: 403 saying so', async () => {
      const answer = await refusal(viemClient(rpcUrl(), { 'x-api-key': key }).getChainId());
      expect(answer).toEqual({
        status: 403,
        message: "refused by this API key's restrictions.origins: the request has no Origin header",
      });
    });

    it('a refusal counts as one request of 0 compute units (and carries the limit headers)', async () => {
      const key = await keyWith({ origins: ['https://app.example.com'] });
      const response = await request(rpcUrl(), {
        headers: { 'x-api-key': key, origin: 'https://evil.example' },
        body: chainIdCall,
      });
      expect(response.status).toBe(403);
      const first = Number(response.headers.get('x-ratelimit-remaining-day'));
      expect(response.headers.get('x-ratelimit-remaining-cu')).toBe(response.headers.get('x-ratelimit-limit-cu'));
      const again = await request(rpcUrl(), { headers: { 'x-api-key': key, origin: 'https://evil.example' }, body: chainIdCall });
      expect(Number(again.headers.get('x-ratelimit-remaining-day'))).toBe(first - 1);
    });

    it('the Fastify JSON-RPC route (percent-encoded path), REST and the bundler refuse the same way', async () => {
      const good = { 'x-api-key': key, origin: 'https://app.example.com' };
      const bad = { 'x-api-key': key, origin: 'https://evil.example' };
      const message = "refused by this API key's restrictions.origins: the origin 'https://evil.example' is not listed";
      const targets = [
        { url: `${t.url}/v1/rpc/ethereum/%64evnet`, body: chainIdCall },
        { url: `${t.url}/v1/webhooks`, method: 'GET' },
        { url: `${t.url}/v1/bundler/ethereum/devnet`, body: chainIdCall },
      ];
      for (const target of targets) {
        const refused = await request(target.url, { ...target, headers: bad });
        expect(refused.status, target.url).toBe(403);
        expect(await refused.json()).toEqual({ error: { code: 'forbidden', message, status: 403 } });
        expect((await request(target.url, { ...target, headers: good })).status, target.url).toBe(200);
      }
    });
  });

  describe('ips', () => {
    it('127.0.0.1 listed: viem passes; a list without it: 403 naming the address', async () => {
      const allowed = await keyWith({ ips: ['203.0.113.0/24', '127.0.0.1'] });
      expect(await viemClient(`${t.url}/v1/rpc/ethereum/devnet`, { 'x-api-key': allowed }).getChainId()).toBe(31337);
      const elsewhere = await keyWith({ ips: ['203.0.113.0/24', '2001:db8::/32'] });
      const answer = await refusal(viemClient(`${t.url}/v1/rpc/ethereum/devnet`, { 'x-api-key': elsewhere }).getChainId());
      expect(answer).toEqual({
        status: 403,
        message: "refused by this API key's restrictions.ips: the address 127.0.0.1 is not listed",
      });
      const rest = await request(`${t.url}/v1/webhooks`, { method: 'GET', headers: { 'x-api-key': elsewhere } });
      expect(rest.status).toBe(403);
      const bundler = await request(`${t.url}/v1/bundler/ethereum/devnet/${elsewhere}`, { body: chainIdCall });
      expect(bundler.status).toBe(403);
    });

    it('without trust_proxy, X-Forwarded-For is not believed', async () => {
      const key = await keyWith({ ips: ['203.0.113.9'] });
      const answer = await refusal(
        viemClient(`${t.url}/v1/rpc/ethereum/devnet`, { 'x-api-key': key, 'x-forwarded-for': '203.0.113.9' }).getChainId(),
      );
      expect(answer.message).toBe("refused by this API key's restrictions.ips: the address 127.0.0.1 is not listed");
    });

    it('behind a trusted proxy: the hop it appended counts, a forged leftmost entry does not', async () => {
      const key = await keyWith({ ips: ['203.0.113.9'] });
      const url = `${proxied.url}/v1/rpc/ethereum/devnet`;
      expect(await viemClient(url, { 'x-api-key': key, 'x-forwarded-for': '203.0.113.9' }).getChainId()).toBe(31337);
      // Two trusted proxies in a row (10.1.2.3 forwarded to the one on 127.0.0.1).
      expect(await viemClient(url, { 'x-api-key': key, 'x-forwarded-for': '203.0.113.9, 10.1.2.3' }).getChainId()).toBe(31337);
      // The client wrote 203.0.113.9 itself; the proxy appended the address it came from.
      const forged = await refusal(
        viemClient(url, { 'x-api-key': key, 'x-forwarded-for': '203.0.113.9, 198.51.100.7' }).getChainId(),
      );
      expect(forged).toEqual({
        status: 403,
        message: "refused by this API key's restrictions.ips: the address 198.51.100.7 is not listed",
      });
      const rest = await request(`${proxied.url}/v1/webhooks`, {
        method: 'GET',
        headers: { 'x-api-key': key, 'x-forwarded-for': '203.0.113.9, 198.51.100.7' },
      });
      expect(((await rest.json()) as { error: { message: string } }).error.message).toMatch(/198\.51\.100\.7/);
    });

    it("behind a trusted proxy, refused keys spend the forwarded client's budget, not the proxy's", async () => {
      const badKey = `svc_test_${'1'.repeat(44)}`;
      const remaining = async (forwardedFor: string) => {
        const response = await request(`${proxied.url}/v1/rpc/ethereum/devnet`, {
          headers: { 'x-api-key': badKey, 'x-forwarded-for': forwardedFor },
          body: chainIdCall,
        });
        expect(response.status).toBe(401);
        return Number(response.headers.get('x-ratelimit-remaining'));
      };
      // The anonymous budget is counted per second: the three requests must fall in one window.
      const [first, again, otherClient] = await withinOneSecond(
        async () => [await remaining('192.0.2.10'), await remaining('192.0.2.10'), await remaining('192.0.2.11')] as const,
      );
      expect(again).toBe(first - 1);
      expect(otherClient).toBe(first);
    });
  });

  describe('CORS for the URL form of a key', () => {
    const preflight = (url: string, origin: string) =>
      fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
        signal: AbortSignal.timeout(10_000),
      });
    let key: string;
    let plainKey: string;
    beforeAll(async () => {
      key = await keyWith({ origins: ['https://app.example.com'] });
      plainKey = (await t.createKey({ plan: 'growth' })).key;
    });

    it("the preflight follows the path key's origins, not cors_origins", async () => {
      for (const path of ['rpc', 'bundler']) {
        const allowed = await preflight(`${t.url}/v1/${path}/ethereum/devnet/${key}`, 'https://app.example.com');
        expect(allowed.status, path).toBe(204);
        expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
        expect(allowed.headers.get('vary')).toMatch(/Origin/);
        const refused = await preflight(`${t.url}/v1/${path}/ethereum/devnet/${key}`, serverWide);
        expect(refused.status, path).toBe(403);
        expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
          `refused by this API key's restrictions.origins: the origin '${serverWide}' is not listed`,
        );
      }
    });

    it('the response to an allowed request echoes its origin', async () => {
      for (const url of [`${t.url}/v1/rpc/ethereum/devnet/${key}`, `${t.url}/v1/rpc/ethereum/%64evnet/${key}`]) {
        const answer = await request(url, { headers: { origin: 'https://app.example.com' }, body: chainIdCall });
        expect(answer.status, url).toBe(200);
        expect(answer.headers.get('access-control-allow-origin'), url).toBe('https://app.example.com');
        expect(answer.headers.get('vary')).toMatch(/Origin/);
      }
    });

    it('a path key without origins, an unknown key and header keys follow cors_origins', async () => {
      const unknown = `svc_test_${'2'.repeat(44)}`;
      for (const url of [
        `${t.url}/v1/rpc/ethereum/devnet/${plainKey}`,
        `${t.url}/v1/rpc/ethereum/devnet/${unknown}`,
        `${t.url}/v1/rpc/ethereum/devnet`,
      ]) {
        expect((await preflight(url, serverWide)).status, url).toBe(204);
        expect((await preflight(url, 'https://app.example.com')).status, url).toBe(403);
      }
      const onProxied = await preflight(`${proxied.url}/v1/rpc/ethereum/devnet/${plainKey}`, serverWide);
      expect(onProxied.status).toBe(403);
    });
  });
});
