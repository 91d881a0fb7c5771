import { describe, expect, it } from 'vitest';
import { restrictionChanges } from '../../src/accounts/key-audit.ts';

describe('restrictionChanges: what the audit trail records of a PATCH of restrictions', () => {
  it('records entries added and removed per list, not the whole lists', () => {
    const origins = Array.from({ length: 1000 }, (_, i) => `https://app-${i}.example.com`);
    expect(restrictionChanges({ origins }, { origins: [...origins.slice(1), 'https://new.example.com'] })).toEqual({
      origins: { added: ['https://new.example.com'], removed: ['https://app-0.example.com'] },
    });
    expect(restrictionChanges({ origins }, { origins: [...origins].reverse() })).toEqual({});
  });

  it('records jwt.required and public keys by id (added, removed, replaced), never a PEM', () => {
    const key = (id: string, pem: string) => ({ id, alg: 'ES256' as const, pem });
    const changes = restrictionChanges(
      { jwt: { required: false, public_keys: [key('a', 'PEM-A'), key('b', 'PEM-B')] } },
      { jwt: { required: true, public_keys: [key('a', 'PEM-A2'), key('c', 'PEM-C')] } },
    );
    expect(changes).toEqual({ jwt: { required: true, public_key_ids: { added: ['c'], removed: ['b'], replaced: ['a'] } } });
    expect(JSON.stringify(changes)).not.toContain('PEM');
    expect(restrictionChanges({ jwt: { required: true, public_keys: [key('a', 'P')] } }, {})).toEqual({
      jwt: { required: false, public_key_ids: { removed: ['a'] } },
    });
  });
});
