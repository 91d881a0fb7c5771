import { request } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLogWritten, startTestService, type TestService } from '../support/service.ts';

// Requests in the plain form (`/v1/rpc/ethereum/devnet`, a Content-Type) are answered by the fast
// path before Fastify; the same request with a percent-encoded path goes through the Fastify route.
// Both must answer alike, byte for byte, headers included.
const fastPath = '/v1/rpc/ethereum/devnet';
const fastifyPath = '/v1/rpc/ethereum/%64evnet';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  names: string[];
  body: string;
}

/** Headers whose value changes from one request to the next (clock, id, the budget the previous request spent). */
const varying = new Set(['date', 'x-request-id', 'x-ratelimit-reset', 'x-ratelimit-remaining']);

function send(url: string, path: string, headers: Record<string, string>, body?: string, chunked = false): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request({ host: target.hostname, port: target.port, path, method: 'POST', headers, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => {
        const names: string[] = [];
        const values: Record<string, string> = {};
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!;
          names.push(name);
          values[name.toLowerCase()] = res.rawHeaders[i + 1]!;
        }
        resolve({ status: res.statusCode!, headers: values, names, body: text });
      });
    });
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    if (chunked && body) {
      // In two parts, the second a little later: the server must wait for the rest of the body.
      req.write(body.slice(0, 1000));
      setTimeout(() => req.end(body.slice(1000)), 30);
    } else req.end(body);
  });
}

/** Everything but the varying values: status, header names in order, stable header values, body. */
function comparable(answer: RawAnswer) {
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !varying.has(name)));
  return { status: answer.status, names: answer.names, headers, body: answer.body };
}

describe('the JSON-RPC fast path answers exactly like the Fastify route', () => {
  let t: TestService;
  let key: string;
  const lines: string[] = [];
  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    t = await startTestService({ logDestination: destination, logLevel: 'debug' });
    key = (await t.createKey()).key;
  });
  afterAll(() => t?.stop());

  const json = { 'content-type': 'application/json' };
  const call = (method: string, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params: [] });
  const both = async (headers: Record<string, string>, body?: string, chunked = false) => {
    const fast = await send(t.url, fastPath, headers, body, chunked);
    const fastify = await send(t.url, fastifyPath, headers, body, chunked);
    return { fast, fastify };
  };

  it.each([
    ['a cached call', () => ({ ...json, 'x-api-key': key }), call('eth_chainId')],
    ['an uncached call', () => ({ ...json, 'x-api-key': key }), call('web3_clientVersion')],
    ['a call with a string id, Bearer auth', () => ({ ...json, authorization: `Bearer ${key}` }), call('eth_chainId', 'abc')],
    [
      'a form content type',
      () => ({ 'content-type': 'application/x-www-form-urlencoded', 'x-api-key': key }),
      call('eth_chainId'),
    ],
    ['a notification (204)', () => ({ ...json, 'x-api-key': key }), JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' })],
    ['a batch', () => ({ ...json, 'x-api-key': key }), `[${call('eth_chainId')},${call('eth_noSuchMethod', 2)},42]`],
    [
      'a batch of notifications (204)',
      () => ({ ...json, 'x-api-key': key }),
      `[${JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' })}]`,
    ],
    ['a body that is not JSON (400)', () => ({ ...json, 'x-api-key': key }), 'nope'],
    ['an empty body (400)', () => ({ ...json, 'x-api-key': key }), ''],
    [
      'a batch of 1,001 (400)',
      () => ({ ...json, 'x-api-key': key }),
      `[${Array.from({ length: 1001 }, () => call('eth_chainId')).join(',')}]`,
    ],
    ['no API key (401)', () => json, call('eth_chainId')],
    ['a malformed API key (401)', () => ({ ...json, 'x-api-key': 'nope' }), call('eth_chainId')],
    ['an unknown API key (401)', () => ({ ...json, 'x-api-key': `svc_test_${'Q'.repeat(44)}` }), call('eth_chainId')],
  ])('%s', async (_name, headers, body) => {
    const { fast, fastify } = await both(headers(), body);
    expect(comparable(fast)).toEqual(comparable(fastify));
    expect(fast.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a batch whose body arrives in two parts', async () => {
    const batch = `[${Array.from({ length: 40 }, (_, id) => call('eth_chainId', id)).join(',')}]`;
    const { fast, fastify } = await both({ ...json, 'x-api-key': key }, batch, true);
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.body)).toHaveLength(40);
    expect(comparable(fast)).toEqual(comparable(fastify));
  });

  it('403 for a missing scope or the wrong environment, 404 for an unknown network', async () => {
    const dataOnly = (await t.createKey({ scopes: ['data:read'] })).key;
    const readOnly = (await t.createKey({ scopes: ['rpc:read'] })).key;
    for (const [headers, body, status] of [
      [{ ...json, 'x-api-key': dataOnly }, call('eth_chainId'), 403],
      [{ ...json, 'x-api-key': readOnly }, call('eth_sendRawTransaction'), 403],
    ] as const) {
      const { fast, fastify } = await both(headers, body);
      expect(fast.status).toBe(status);
      expect(comparable(fast)).toEqual(comparable(fastify));
    }
    const mainnet = await send(t.url, '/v1/rpc/ethereum/mainnet', { ...json, 'x-api-key': key }, call('eth_chainId'));
    const mainnetViaFastify = await send(t.url, '/v1/rpc/ethereum/%6Dainnet', { ...json, 'x-api-key': key }, call('eth_chainId'));
    expect(mainnet.status).toBe(403);
    expect(comparable(mainnet)).toEqual(comparable(mainnetViaFastify));
    const unknown = await send(t.url, '/v1/rpc/bitcoin/mainnet', { ...json, 'x-api-key': key }, call('eth_chainId'));
    const unknownViaFastify = await send(t.url, '/v1/rpc/bitcoi%6E/mainnet', { ...json, 'x-api-key': key }, call('eth_chainId'));
    expect(unknown.status).toBe(404);
    expect(comparable(unknown)).toEqual(comparable(unknownViaFastify));
  });

  it('413 for a body over 5 MB, declared or chunked, closing the connection; 401 first without a key', async () => {
    const big = `[${'1,'.repeat(3 * 1024 * 1024)}1]`;
    for (const chunked of [false, true]) {
      const { fast, fastify } = await both({ ...json, 'x-api-key': key }, big, chunked);
      expect(fast.status).toBe(413);
      expect(fast.headers.connection).toBe('close');
      expect(comparable(fast)).toEqual(comparable(fastify));
    }
    const anonymous = await both(json, big);
    expect(anonymous.fast.status).toBe(401);
    expect(comparable(anonymous.fast).body).toBe(comparable(anonymous.fastify).body);
  });

  it('400 without Retry-After, with the limit headers, when a batch costs more than the plan allows', async () => {
    const limited = (await t.createKey({ limits: { cups: 30 } })).key;
    const batch = `[${Array.from({ length: 40 }, (_, id) => call('eth_blockNumber', id)).join(',')}]`;
    const { fast, fastify } = await both({ ...json, 'x-api-key': limited }, batch);
    expect(fast.status).toBe(400);
    expect(fast.headers['retry-after']).toBeUndefined();
    expect(fast.headers['x-ratelimit-limit-cu']).toBe('30');
    expect(comparable(fast)).toEqual(comparable(fastify));
  });

  it('echoes a plain X-Request-Id and replaces any other with a new id, on both paths', async () => {
    for (const path of [fastPath, fastifyPath]) {
      const given = await send(t.url, path, { ...json, 'x-api-key': key, 'x-request-id': 'trace-42' }, call('eth_chainId'));
      expect(given.headers['x-request-id']).toBe('trace-42');
      const odd = await send(t.url, path, { ...json, 'x-api-key': key, 'x-request-id': 'has spaces in it' }, call('eth_chainId'));
      expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('writes the same log line per request on both paths, and counts both in the metrics', async () => {
    const before = await fetch(`${t.url}/metrics`).then((r) => r.text());
    await send(t.url, fastPath, { ...json, 'x-api-key': key, 'x-request-id': 'log-fast' }, 'nope');
    await send(t.url, fastifyPath, { ...json, 'x-api-key': key, 'x-request-id': 'log-fastify' }, 'nope');
    await accessLogWritten();
    // biome-ignore lint/suspicious/noExplicitAny: log lines are inspected freely
    const entries = lines.map((line) => JSON.parse(line) as Record<string, any>);
    const shape = (reqId: string): Record<string, unknown>[] =>
      entries
        .filter((entry) => entry.reqId === reqId)
        .map(({ time: _time, ms, req, ...rest }) => ({ ...rest, ms: typeof ms, req: { ...req, url: undefined } }));
    const fast = shape('log-fast');
    expect(fast.map((entry) => entry.msg)).toEqual(['request refused', 'request']);
    expect(fast).toEqual(shape('log-fastify').map((entry) => ({ ...entry, reqId: 'log-fast' })));
    expect(JSON.stringify(fast)).not.toContain(key);

    const after = await fetch(`${t.url}/metrics`).then((r) => r.text());
    const count = (text: string) =>
      Number(
        text
          .split('\n')
          .find(
            (l) => l.startsWith('blockyard_http_requests_total{') && l.includes('route="/v1/rpc/:chain/:network",status="400"'),
          )
          ?.split(' ')
          .at(-1) ?? 0,
      );
    expect(count(after) - count(before)).toBe(2);
  });
});
