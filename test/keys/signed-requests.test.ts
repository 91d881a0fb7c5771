import { createPublicClient, HttpRequestError, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigningKey, listed, restrictKey, type SigningKey } from '../support/key-restrictions.ts';
import { startTestService, type TestService } from '../support/service.ts';

const chainIdCall = { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] };
const nowS = () => Math.floor(Date.now() / 1000);

/** The HTTP status and error message of a viem call (status 200 and '' when it passed). */
async function outcome(key: string, url: string, headers: Record<string, string>) {
  const client = createPublicClient({
    transport: http(url, { fetchOptions: { headers: { 'x-api-key': key, ...headers } }, retryCount: 0 }),
  });
  try {
    expect(await client.getChainId()).toBe(31337);
    return { status: 200, message: '' };
  } catch (error) {
    expect(error).toBeInstanceOf(HttpRequestError);
    const refused = error as HttpRequestError;
    return { status: refused.status, message: JSON.parse(refused.details).message as string };
  }
}

describe('signed requests: a key with restrictions.jwt', () => {
  let t: TestService;
  /** Another process of the deployment, with jwt_audience set. */
  let custom: TestService;
  let rsa: SigningKey;
  let ec: SigningKey;
  /** Not listed on the key, but sharing the RSA key's kid: a forged signature. */
  let impostor: SigningKey;
  let key: string;
  let rpcUrl: string;
  beforeAll(async () => {
    t = await startTestService();
    custom = await startTestService({ sharing: t, settings: { jwt_audience: 'my-app' } });
    [rsa, ec, impostor] = await Promise.all([
      createSigningKey('rsa-1', 'RS256'),
      createSigningKey('ec-1', 'ES256'),
      createSigningKey('rsa-1', 'RS256'),
    ]);
    const created = await t.createKey({ plan: 'growth' });
    await restrictKey(t, created.keyId, { jwt: { required: true, public_keys: [listed(rsa), listed(ec)] } });
    key = created.key;
    rpcUrl = `${t.url}/v1/rpc/ethereum/devnet`;
  });
  afterAll(async () => {
    await custom?.stop();
    await t?.stop();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('jose-signed RS256 and ES256 tokens are accepted besides X-API-Key, and with the key in the path', async () => {
    expect(await outcome(key, rpcUrl, bearer(await rsa.sign()))).toEqual({ status: 200, message: '' });
    expect(await outcome(key, rpcUrl, bearer(await ec.sign()))).toEqual({ status: 200, message: '' });
    // The Bearer JWT is not a second key: the two-different-keys rule does not refuse it.
    const pathForm = await fetch(`${rpcUrl}/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(await ec.sign()) },
      body: JSON.stringify(chainIdCall),
      signal: AbortSignal.timeout(10_000),
    });
    expect(pathForm.status).toBe(200);
    // Re-sent, the same token still passes (it is remembered until its exp).
    const token = await rsa.sign();
    for (let i = 0; i < 3; i++) expect((await outcome(key, rpcUrl, bearer(token))).status).toBe(200);
  });

  it.each([
    ['missing', async () => ({}), /requires signed requests \(restrictions\.jwt\): send 'Authorization: Bearer <JWT>'/],
    ['expired', async () => bearer(await rsa.sign({ expiresIn: nowS() - 60 })), /the JWT has expired/],
    ['for another audience', async () => bearer(await rsa.sign({ aud: 'someone-else' })), /audience \(aud\) must be 'blockyard'/],
    [
      'of an unknown kid',
      async () => bearer(await rsa.sign({ kid: 'rsa-9' })),
      /the JWT's kid 'rsa-9' is not one of this API key's public keys/,
    ],
    ['with a bad signature', async () => bearer(await impostor.sign()), /signature does not verify with the public key 'rsa-1'/],
    ['expiring more than 24 h ahead', async () => bearer(await ec.sign({ expiresIn: '25h' })), /more than 24 h/],
    ['malformed', async () => bearer('bm90IGpzb24.bm90IGpzb24.c2ln'), /malformed JWT/],
  ])('a token %s: 401 naming it', async (_name, headers, message) => {
    const answer = await outcome(key, rpcUrl, await headers());
    expect(answer.status).toBe(401);
    expect(answer.message).toMatch(message);
  });

  it('REST and the Fastify JSON-RPC route refuse the same way', async () => {
    for (const [url, init] of [
      [`${t.url}/v1/webhooks`, { method: 'GET' }],
      [`${t.url}/v1/rpc/ethereum/%64evnet`, { method: 'POST', body: JSON.stringify(chainIdCall) }],
    ] as const) {
      const send = (headers: Record<string, string>) =>
        fetch(url, {
          ...init,
          headers: { 'x-api-key': key, ...('body' in init ? { 'content-type': 'application/json' } : {}), ...headers },
          signal: AbortSignal.timeout(10_000),
        });
      const refused = await send({});
      expect(refused.status, url).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      expect((await send(bearer(await rsa.sign()))).status, url).toBe(200);
    }
  });

  it('the audience is the jwt_audience setting', async () => {
    const elsewhere = `${custom.url}/v1/rpc/ethereum/devnet`;
    expect((await outcome(key, elsewhere, bearer(await rsa.sign()))).message).toMatch(/audience \(aud\) must be 'my-app'/);
    expect((await outcome(key, elsewhere, bearer(await rsa.sign({ aud: 'my-app' })))).status).toBe(200);
  });

  it('public keys without required: a token sent is verified, none is fine', async () => {
    const created = await t.createKey({ plan: 'growth' });
    await restrictKey(t, created.keyId, { jwt: { required: false, public_keys: [listed(ec)] } });
    expect(await outcome(created.key, rpcUrl, {})).toEqual({ status: 200, message: '' });
    expect((await outcome(created.key, rpcUrl, bearer(await ec.sign()))).status).toBe(200);
    expect((await outcome(created.key, rpcUrl, bearer(await ec.sign({ expiresIn: nowS() - 60 })))).status).toBe(401);
  });

  it('a key without jwt restrictions ignores a Bearer JWT sent besides it', async () => {
    const plain = (await t.createKey({ plan: 'growth' })).key;
    expect((await outcome(plain, rpcUrl, bearer(await rsa.sign({ aud: 'whatever' })))).status).toBe(200);
  });
});
