import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigningKey, listed, restrictKey, type SigningKey } from '../support/key-restrictions.ts';
import { startTestService, type TestService } from '../support/service.ts';

const chainIdCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });

describe('signed requests that cannot be replayed (restrictions.jwt.single_use and bind_to_key)', () => {
  let t: TestService;
  /** A second process of the same deployment (same database). */
  let other: TestService;
  let signer: SigningKey;
  let key: string;
  let keyId: string;
  beforeAll(async () => {
    t = await startTestService();
    other = await startTestService({ sharing: t });
    signer = await createSigningKey('k1', 'ES256');
    const created = await t.createKey();
    key = created.key;
    keyId = created.keyId;
    await restrictKey(t, keyId, {
      jwt: { required: true, public_keys: [listed(signer)], single_use: true, bind_to_key: true },
    });
  });
  afterAll(async () => {
    await other?.stop();
    await t?.stop();
  });

  const post = async (service: TestService, token: string) => {
    const response = await fetch(`${service.url}/v1/rpc/ethereum/devnet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key, authorization: `Bearer ${token}` },
      body: chainIdCall,
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as { result?: string; message?: string; error?: { message: string } };
    return { status: response.status, message: body.message ?? body.error?.message ?? '' };
  };

  it('a token is taken once, whichever process sees it again; a new jti passes', async () => {
    const token = await signer.sign({ sub: keyId, jti: 'request-1' });
    expect(await post(t, token)).toEqual({ status: 200, message: '' });
    const again = await post(other, token);
    expect(again.status).toBe(401);
    expect(again.message).toMatch(/already used \(jti 'request-1'\)/);
    expect((await post(t, token)).status).toBe(401);
    expect((await post(other, await signer.sign({ sub: keyId, jti: 'request-2' }))).status).toBe(200);
  });

  it('sent at once to both processes, a token passes exactly once', async () => {
    const token = await signer.sign({ sub: keyId, jti: 'race-1' });
    const answers = await Promise.all([post(t, token), post(other, token), post(t, token), post(other, token)]);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
  });

  it('a token without jti, or bound to another key, is refused naming the rule', async () => {
    const noJti = await post(t, await signer.sign({ sub: keyId }));
    expect(noJti).toMatchObject({ status: 401, message: expect.stringMatching(/needs a jti claim/) });
    const elsewhere = await post(t, await signer.sign({ sub: 'key_someone_else', jti: 'bound-1' }));
    expect(elsewhere).toMatchObject({ status: 401, message: expect.stringMatching(/not bound to this API key/) });
  });

  it('the settings need a public key to apply to, and are answered with the key', async () => {
    const created = await t.createKey();
    const refused = await t.admin('PATCH', `/admin/keys/${created.keyId}`, { restrictions: { jwt: { single_use: true } } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/restrictions\.jwt\.single_use/);
    const shown = await t.admin('PATCH', `/admin/keys/${created.keyId}`, {
      restrictions: { jwt: { public_keys: [listed(signer)], single_use: true } },
    });
    expect(shown.status).toBe(200);
    expect(shown.body.restrictions.jwt).toEqual({ required: false, single_use: true, public_keys: [listed(signer)] });
  });
});
