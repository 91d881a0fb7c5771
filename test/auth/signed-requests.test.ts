import { describe, expect, it } from 'vitest';
import { apiKeyFromRequest, jwtFromRequest } from '../../src/auth/extract-key.ts';
import { compileSignedRequestRule, createSignedRequestVerifier } from '../../src/auth/restrictions/signed-requests.ts';
import { createSigningKey, listed } from '../support/key-restrictions.ts';

const key = `svc_test_${'a'.repeat(44)}`;

describe('a Bearer JWT beside the key', () => {
  const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJibG9ja3lhcmQifQ.c2lnbmF0dXJl';

  it('is the JWT, not a second key', () => {
    const headers = { 'x-api-key': key, authorization: `Bearer ${jwt}` };
    expect(apiKeyFromRequest(headers)).toBe(key);
    expect(apiKeyFromRequest({ authorization: `Bearer ${jwt}` }, { path: key })).toBe(key);
    expect(jwtFromRequest(headers)).toBe(jwt);
  });

  it('a Bearer key stays a key, and two different keys are still refused', () => {
    expect(apiKeyFromRequest({ authorization: `Bearer ${key}` })).toBe(key);
    expect(jwtFromRequest({ authorization: `Bearer ${key}` })).toBeUndefined();
    expect(() => apiKeyFromRequest({ 'x-api-key': key, authorization: `Bearer svc_test_${'b'.repeat(44)}` })).toThrow(
      /two different API keys/,
    );
  });
});

const use = { keyId: 'key_test', consume: true };

describe('the verifier', () => {
  it('remembers a verified token until its exp, and only for the key it was verified for', async () => {
    const signer = await createSigningKey('k1', 'ES256');
    let now = Date.now();
    const verifier = createSignedRequestVerifier({ audience: 'blockyard', now: () => now });
    const rule = compileSignedRequestRule({ required: true, public_keys: [listed(signer)] })!;
    const otherKeysRule = compileSignedRequestRule({ required: true, public_keys: [{ ...listed(signer), id: 'k2' }] })!;
    const token = await signer.sign({ expiresIn: Math.floor(now / 1000) + 60 });
    await verifier.verify(rule, token, use);
    await verifier.verify(rule, token, use);
    await expect(verifier.verify(otherKeysRule, token, use)).rejects.toThrow(/kid 'k1' is not one of this API key's public keys/);
    now += 61_000;
    await expect(verifier.verify(rule, token, use)).rejects.toThrow(/the JWT has expired/);
  });

  it('refuses a token issued more than a minute ahead of its clock (iat), and takes one a little ahead', async () => {
    const signer = await createSigningKey('k1', 'ES256');
    const rule = compileSignedRequestRule({ required: true, public_keys: [listed(signer)] })!;
    const token = await signer.sign();
    // The verifier's clock behind the signer's: the token's iat is in the verifier's future.
    const behindBy = (ms: number) => createSignedRequestVerifier({ audience: 'blockyard', now: () => Date.now() - ms });
    await expect(behindBy(120_000).verify(rule, token, use)).rejects.toThrow(/issued-at time \(iat\) is in the future/);
    await behindBy(30_000).verify(rule, token, use);
  });

  it('a token without kid is checked against the only listed key; with two listed it must name one', async () => {
    const [a, b] = await Promise.all([createSigningKey('a', 'RS256'), createSigningKey('b', 'ES256')]);
    const verifier = createSignedRequestVerifier({ audience: 'blockyard' });
    await verifier.verify(
      compileSignedRequestRule({ required: true, public_keys: [listed(a)] })!,
      await a.sign({ kid: null }),
      use,
    );
    const both = compileSignedRequestRule({ required: true, public_keys: [listed(a), listed(b)] })!;
    await expect(verifier.verify(both, await a.sign({ kid: null }), use)).rejects.toThrow(/no kid header/);
    // An ES256 token presented under the RS256 key's kid.
    await expect(verifier.verify(both, await b.sign({ kid: 'a' }), use)).rejects.toThrow(/alg is not RS256/);
  });
});

describe('single-use and key-bound tokens (restrictions.jwt.single_use, bind_to_key)', () => {
  /** A memory store standing in for Postgres's used_jwt_ids (test/keys/signed-requests-replay.test.ts uses the real one). */
  const memoryStore = () => {
    const seen = new Set<string>();
    return {
      async firstUse(keyId: string, jti: string) {
        const id = `${keyId}/${jti}`;
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      },
    };
  };

  it('takes a token with a jti once, even while it is remembered as verified; a recheck of the same connection does not take it', async () => {
    const signer = await createSigningKey('k1', 'ES256');
    const verifier = createSignedRequestVerifier({ audience: 'blockyard', usedTokens: memoryStore() });
    const rule = compileSignedRequestRule({ required: true, public_keys: [listed(signer)], single_use: true })!;
    const token = await signer.sign({ jti: 'once-1' });
    await verifier.verify(rule, token, use);
    await verifier.verify(rule, token, { ...use, consume: false });
    await expect(verifier.verify(rule, token, use)).rejects.toThrow(/already used \(jti 'once-1'\)/);
    // The same jti under another key is another token.
    await verifier.verify(rule, token, { keyId: 'key_other', consume: true });
    const withoutJti = await signer.sign();
    await expect(verifier.verify(rule, withoutJti, use)).rejects.toThrow(/needs a jti claim/);
  });

  it('binds a token to the key by its sub or key claim', async () => {
    const signer = await createSigningKey('k1', 'ES256');
    const verifier = createSignedRequestVerifier({ audience: 'blockyard' });
    const rule = compileSignedRequestRule({ required: true, public_keys: [listed(signer)], bind_to_key: true })!;
    await verifier.verify(rule, await signer.sign({ sub: 'key_test' }), use);
    await verifier.verify(rule, await signer.sign({ sub: 'someone', key: 'key_test' }), use);
    await expect(verifier.verify(rule, await signer.sign({ sub: 'key_other' }), use)).rejects.toThrow(
      /not bound to this API key .* must be 'key_test'/,
    );
  });
});
