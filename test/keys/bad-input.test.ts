import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service.ts';

const rsaPem = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;

describe('key restrictions and limits: bad input is 400 naming the entry', () => {
  let t: TestService;
  let accountId: string;
  let keyId: string;
  beforeAll(async () => {
    t = await startTestService();
    ({ accountId, keyId } = await t.createKey());
  });
  afterAll(() => t?.stop());

  async function expectRefused(body: Record<string, unknown>, message: RegExp) {
    for (const [method, path] of [
      ['POST', `/admin/accounts/${accountId}/keys`],
      ['PATCH', `/admin/keys/${keyId}`],
    ] as const) {
      const full = method === 'POST' ? { name: 'k', environment: 'test', ...body } : body;
      const response = await t.admin(method, path, full);
      expect(response.status, `${method} ${JSON.stringify(body)}`).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(response.body.error.message).toMatch(message);
    }
  }

  it.each([
    [{ ips: ['127.0.0.1', '10.0.0.0/33'] }, /'restrictions\.ips\[1\]'.*10\.0\.0\.0\/33.*prefix length must be 0 to 32/],
    [{ ips: ['2001:db8::/129'] }, /'restrictions\.ips\[0\]'.*0 to 128/],
    [{ ips: ['not-an-ip'] }, /'restrictions\.ips\[0\]'.*not an IP address/],
    [{ ips: ['10.0.0.1/8/2'] }, /'restrictions\.ips\[0\]'/],
    [{ ips: ['10.0.0.0/0x8'] }, /'restrictions\.ips\[0\]'/],
    [{ ips: ['::1', 'fe80::1%eth0'] }, /'restrictions\.ips\[1\]'/],
    [{ ips: ['010.0.0.1'] }, /'restrictions\.ips\[0\]'/],
    [{ origins: ['app.example.com'] }, /'restrictions\.origins\[0\]'.*needs a scheme/],
    [{ origins: ['https://ok.example.com', 'https://app.example.com/path'] }, /'restrictions\.origins\[1\]'.*path/],
    [{ origins: ['https://app.*.example.com'] }, /'restrictions\.origins\[0\]'.*wildcard/],
    [{ origins: ['https://*'] }, /'restrictions\.origins\[0\]'/],
    [{ origins: ['https://*.org'] }, /'restrictions\.origins\[0\]'.*two labels/],
    [{ origins: ['https://user@app.example.com'] }, /'restrictions\.origins\[0\]'.*user information/],
    [{ origins: ['ftp://app.example.com'] }, /'restrictions\.origins\[0\]'/],
    [{ origins: ['https://app.example.com?x=1'] }, /'restrictions\.origins\[0\]'/],
    [
      { contracts: ['0x0000000000000000000000000000000000000001', '0x1', 'hello'] },
      /'restrictions\.contracts\[1\]'.*not a contract address/,
    ],
    [{ contracts: ['0x52908400098527886E0F7030069857D2E4169Ee7'] }, /'restrictions\.contracts\[0\]'.*checksum/],
    [{ methods: ['eth_notAMethod'] }, /'restrictions\.methods\[0\]'.*eth_notAMethod/],
    [{ methods: ['eth_call', 'ETH_CALL'] }, /'restrictions\.methods\[1\]'/],
    [
      { jwt: { required: true, public_keys: [{ id: 'a', alg: 'RS256', pem: 'not a pem' }] } },
      /'restrictions\.jwt\.public_keys\[0\]\.pem'.*SPKI/,
    ],
    [{ jwt: { public_keys: [{ id: 'a', alg: 'ES256', pem: rsaPem }] } }, /'restrictions\.jwt\.public_keys\[0\]\.pem'.*ES256/],
    [{ jwt: { public_keys: [{ id: 'a', alg: 'RS256', pem: ecPem }] } }, /'restrictions\.jwt\.public_keys\[0\]\.pem'.*RS256/],
    [
      {
        jwt: {
          public_keys: [
            { id: 'a', alg: 'RS256', pem: rsaPem },
            { id: 'a', alg: 'ES256', pem: ecPem },
          ],
        },
      },
      /'restrictions\.jwt\.public_keys\[1\]\.id'.*twice/,
    ],
    [{ jwt: { required: true } }, /'restrictions\.jwt\.public_keys'.*at least one/],
    [{ jwt: { required: true, public_keys: [] } }, /'restrictions\.jwt\.public_keys'.*at least one/],
    [
      { jwt: { required: true, public_keys: [{ id: 'a', alg: 'HS256', pem: rsaPem }] } },
      /'restrictions\.jwt\.public_keys\[0\]\.alg': must be one of RS256, ES256$/,
    ],
    [{ ips: Array.from({ length: 1001 }, (_, i) => `10.0.${i >> 8}.${i & 255}`) }, /'restrictions\.ips'.*1000/],
    [{ colours: ['red'] }, /unknown body 'restrictions\.colours'/],
  ])('restrictions %j', async (restrictions, message) => {
    await expectRefused({ restrictions }, message);
  });

  it.each([
    [{ rps: 0 }, /'limits\.rps'/],
    [{ rpd: 1_000_000_001 }, /'limits\.rpd'/],
    [{ cups: 1.5 }, /'limits\.cups'/],
    [{ rps: null, rpd: -5 }, /'limits\.rpd'/],
    [{ webhook_deliveries_per_day: 5 }, /unknown body 'limits\.webhook_deliveries_per_day'/],
  ])('limits %j', async (limits, message) => {
    await expectRefused({ limits }, message);
  });

  it('PATCH refuses an empty body and unknown fields; rotate refuses a grace over 7 days or below 0', async () => {
    const empty = await t.admin('PATCH', `/admin/keys/${keyId}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('invalid_request');
    const unknown = await t.admin('PATCH', `/admin/keys/${keyId}`, { environment: 'live' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/unknown body 'environment'/);
    for (const grace_s of [604_801, -1, 1.5, 'soon']) {
      const rotated = await t.admin('POST', `/admin/keys/${keyId}/rotate`, { grace_s });
      expect(rotated.status, String(grace_s)).toBe(400);
      expect(rotated.body.error.message).toMatch(/'grace_s'/);
    }
  });

  it('the largest restrictions (1,000 entries in every list, 100 public keys) are taken, above the 64 KiB of other REST bodies', async () => {
    const hex = (i: number) => i.toString(16).padStart(40, '0');
    const restrictions = {
      origins: Array.from({ length: 1000 }, (_, i) => `https://app-${i}.customer-domain.example.com`),
      ips: Array.from({ length: 1000 }, (_, i) => `2001:db8:${i.toString(16)}::/48`),
      contracts: Array.from({ length: 1000 }, (_, i) => `0x${hex(i + 1)}`),
      methods: ['eth_call', 'eth_getLogs'],
      jwt: { public_keys: Array.from({ length: 100 }, (_, i) => ({ id: `key-${i}`, alg: 'ES256', pem: ecPem })) },
    };
    expect(JSON.stringify({ restrictions }).length).toBeGreaterThan(128 * 1024);
    const created = await t.admin('POST', `/admin/accounts/${accountId}/keys`, {
      name: 'big',
      environment: 'test',
      restrictions,
    });
    expect(created.status).toBe(201);
    expect(created.body.restrictions.contracts).toHaveLength(1000);
    const patched = await t.admin('PATCH', `/admin/keys/${created.body.id}`, { restrictions });
    expect(patched.status).toBe(200);
  });

  it('nothing refused was stored: the key still has no restrictions and no events beyond its creation', async () => {
    const { body } = await t.admin('GET', `/admin/accounts/${accountId}/keys`);
    const key = body.keys.find((k: { id: string }) => k.id === keyId);
    expect(key.restrictions).toEqual({});
    expect(key.limits).toEqual({});
    const events = await t.admin('GET', `/admin/keys/${keyId}/events`);
    expect(events.body.events.map((e: { action: string }) => e.action)).toEqual(['create']);
  });
});
