import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import { generateApiKey } from '../../src/keys/api-key.ts';
import { type KeyRow, keyRow } from '../support/key-row.ts';

function rowOf(validUntil: Date | null): KeyRow {
  return keyRow({ valid_until: validUntil });
}

describe('authenticator and rotated-out secrets', () => {
  it('a cached rotated-out secret stops at its end, not when its cache entry expires', async () => {
    let clock = 1_000;
    let lookups = 0;
    const store = {
      findKeyByHash: async () => {
        lookups++;
        return rowOf(new Date(5_000));
      },
    };
    const auth = createAuthenticator({ store, cacheTtlMs: 10_000, now: () => clock });
    const key = generateApiKey('test').key;
    expect((await auth.authenticate(key)).validUntil).toEqual(new Date(5_000));
    clock = 4_999;
    expect((await auth.authenticate(key)).keyId).toBe('key_1');
    clock = 5_000;
    await expect(auth.authenticate(key)).rejects.toMatchObject({
      code: 'unauthorized',
      message: 'this API key was rotated; its previous secret stopped working at 1970-01-01T00:00:05.000Z',
    });
    expect(lookups).toBe(1);
  });

  it('a rotated-out secret read after its end is refused with the same message; forgetAll empties the cache', async () => {
    let clock = 6_000;
    let lookups = 0;
    const store = {
      findKeyByHash: async () => {
        lookups++;
        return rowOf(new Date(5_000));
      },
    };
    const auth = createAuthenticator({ store, now: () => clock });
    const key = generateApiKey('test').key;
    await expect(auth.authenticate(key)).rejects.toMatchObject({ message: /stopped working at 1970-01-01T00:00:05\.000Z/ });
    await expect(auth.authenticate(key)).rejects.toMatchObject({ code: 'unauthorized' });
    expect(lookups).toBe(1);
    auth.forgetAll();
    clock = 6_001;
    await expect(auth.authenticate(key)).rejects.toMatchObject({ code: 'unauthorized' });
    expect(lookups).toBe(2);
  });

  it('a lookup that began before a key change serves its waiting request but is not cached', async () => {
    let release: (row: KeyRow) => void = () => undefined;
    let lookups = 0;
    const store = {
      findKeyByHash: () => {
        lookups++;
        if (lookups === 1) return new Promise<KeyRow>((resolve) => (release = resolve));
        return Promise.resolve({ ...rowOf(null), scopes: ['data:read'] } as KeyRow);
      },
    };
    const auth = createAuthenticator({ store });
    const key = generateApiKey('test').key;
    const before = auth.authenticate(key);
    await new Promise((resolve) => setImmediate(resolve));
    // The change commits and its NOTIFY arrives while the first read (of the old row) is still on its way.
    auth.forget('key_1');
    release(rowOf(null));
    expect([...(await before).scopes]).toEqual(['rpc:read']);
    expect([...(await auth.authenticate(key)).scopes]).toEqual(['data:read']);
    expect(lookups).toBe(2);
  });
});
