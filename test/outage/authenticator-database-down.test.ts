import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import { databaseUnavailable } from '../../src/db/unavailable.ts';
import { generateApiKey } from '../../src/keys/api-key.ts';
import { keyRow } from '../support/key-row.ts';

/** Issue 20: while the database is down, keys known a moment ago keep working; unknown ones get the 503. */
describe('authenticator while the database cannot be reached', () => {
  const row = keyRow();

  it('uses an expired cache entry for up to staleForMs, then answers 503', async () => {
    let clock = 0;
    let down = false;
    const store = {
      findKeyByHash: async () => {
        if (down) throw databaseUnavailable(new Error('ECONNREFUSED'));
        return row;
      },
    };
    const auth = createAuthenticator({ store, cacheTtlMs: 1_000, staleForMs: 60_000, now: () => clock });
    const known = generateApiKey('test').key;
    expect((await auth.authenticate(known)).keyId).toBe('key_1');
    down = true;
    clock = 30_000;
    expect((await auth.authenticate(known)).keyId).toBe('key_1');
    await expect(auth.authenticate(generateApiKey('test').key)).rejects.toMatchObject({ code: 'service_unavailable' });
    clock = 62_000;
    await expect(auth.authenticate(known)).rejects.toMatchObject({ code: 'service_unavailable', status: 503 });
    down = false;
    expect((await auth.authenticate(known)).keyId).toBe('key_1');
  });
});
