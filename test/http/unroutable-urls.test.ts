import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

// Requests the router cannot take: a path parameter over Fastify's 100 characters (414), a bad
// percent-encoding (400), an unknown path (404). Each must answer like every other route: the spec's
// error object, x-request-id, and on /v1 the rate-limit headers (the request is authenticated and
// counted as one request of 0 compute units).
const long = 'a'.repeat(120);
const contract = '0x2c557E17c11A17fA0862602f544885F183E680fB';

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

async function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  const response = await fetch(url, { method, headers, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, headers: response.headers, body: JSON.parse(await response.text()) };
}

function expectError(answer: Answer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ error: { code, message: expect.any(String), status } });
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
}

describe('URLs the router cannot take', () => {
  let t: TestService;
  let key: string;
  beforeAll(async () => {
    t = await startTestService();
    key = (await t.createKey({ plan: 'growth' })).key;
  });
  afterAll(() => t?.stop());

  const v1Cases = [
    ['GET', `/v1/tokens/${long}/metadata/${contract}`, 414, 'uri_too_long', /longer than 100 characters/],
    ['POST', `/v1/rpc/${long}/devnet`, 414, 'uri_too_long', /longer than 100 characters/],
    ['GET', '/v1/tokens/ethereum/metadata/%E0%A4%A', 400, 'invalid_request', /percent-encoding/],
    ['GET', '/v1/nfts/ethereum/owned/%zz', 400, 'invalid_request', /percent-encoding/],
    ['GET', '/v1/nothing/here', 404, 'not_found', /no route GET \/v1\/nothing\/here/],
  ] as const;

  it.each(v1Cases)('%s %s: %i %s with x-request-id and the limit headers', async (method, path, status, code, message) => {
    const before = await get(`${t.url}${path}`, { 'x-api-key': key }, method);
    const answer = await get(`${t.url}${path}`, { 'x-api-key': key, 'x-request-id': 'client-id-1' }, method);
    expect(answer.status).toBe(status);
    expect(answer.body).toEqual({ error: { code, message: expect.stringMatching(message), status } });
    expect(answer.headers.get('x-request-id')).toBe('client-id-1');
    expectError(before, status, code);
    // The key's own budget (growth: 100 requests per second), spent by each such request.
    expect(answer.headers.get('x-ratelimit-limit')).toBe('100');
    expect(answer.headers.get('x-ratelimit-limit-day')).toBe('5000000');
    expect(Number(answer.headers.get('x-ratelimit-remaining-day'))).toBe(
      Number(before.headers.get('x-ratelimit-remaining-day')) - 1,
    );
    expect(answer.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  });

  it('without a key such a /v1 request is a 401 charged to the address, like any other', async () => {
    for (const path of [`/v1/tokens/${long}/metadata/${contract}`, '/v1/tokens/ethereum/metadata/%E0%A4%A', '/v1/nothing']) {
      const answer = await get(`${t.url}${path}`);
      expectError(answer, 401, 'unauthorized');
      expect(answer.headers.get('x-ratelimit-limit')).toBe('20');
    }
  });

  it('on an admin path: the error object and x-request-id, behind the admin token', async () => {
    const admin = { authorization: `Bearer ${t.adminToken}` };
    const tooLong = await get(`${t.url}/admin/accounts/${long}`, admin);
    expectError(tooLong, 414, 'uri_too_long');
    const badEncoding = await get(`${t.url}/admin/accounts/%E0%A4%A/keys`, admin);
    expectError(badEncoding, 400, 'invalid_request');
    expect(badEncoding.headers.get('x-ratelimit-limit')).toBeNull();
    expectError(await get(`${t.url}/admin/accounts/${long}`), 401, 'unauthorized');
    expectError(await get(`${t.url}/admin/nothing`), 401, 'unauthorized');
    expectError(await get(`${t.url}/admin/nothing`, admin), 404, 'not_found');
  });

  it('counts them in the request metrics', async () => {
    await get(`${t.url}/admin/accounts/${long}`, { authorization: `Bearer ${t.adminToken}` });
    const metrics = await (await fetch(`${t.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
    expect(metrics).toMatch(/blockyard_http_requests_total\{method="GET",route="unmatched",status="414"\} [1-9]/);
  });
});
