// The key page's events in words (web/src/pages/key-event-words.ts), from the details the audit stores
// (src/accounts/key-operations.ts).
import { describe, expect, it } from 'vitest';
import { actorInWords, detailsInWords } from '../../web/src/pages/key-event-words.ts';

describe('key events in words', () => {
  it('says a creation, a change and a rotation in a fixed order, whatever order the stored JSON has', () => {
    expect(
      detailsInWords('create', {
        limits: {},
        name: 'frontend',
        scopes: ['rpc:read', 'rpc:write', 'data:read', 'wallets:manage', 'webhooks:manage', 'gas:manage', 'bundler:send'],
        environment: 'test',
        restrictions: {},
      }),
    ).toEqual(['name “frontend”', 'test environment', 'all scopes', 'no restrictions', 'the account’s limits']);
    expect(
      detailsInWords('restrict', {
        limits: { rps: 50 },
        changed: ['restrictions', 'limits'],
        restrictions: {
          ips: { added: ['203.0.113.0/24', '127.0.0.1'], removed: ['10.0.0.1'] },
          jwt: { required: true, public_key_ids: { added: ['ci'], replaced: ['old'] } },
          origins: { added: ['https://a.example'] },
        },
      }),
    ).toEqual([
      'origins: added https://a.example; IP addresses: added 203.0.113.0/24, 127.0.0.1, removed 10.0.0.1; signed requests required, public keys added ci, replaced old',
      'limits 50 requests/s',
    ]);
    expect(
      detailsInWords('create', { restrictions: { methods: ['eth_call'], jwt: { required: false, public_key_ids: ['ci'] } } }),
    ).toEqual(['methods: eth_call; signed requests not required, public keys ci']);
    const until = new Date(Date.now() + 86_400_000).toISOString();
    expect(detailsInWords('rotate', { grace_s: 86_400, previous_key_expires_at: until, prefix: 'svc_test_3kKW' })).toEqual([
      'new key svc_test_3kKW…',
      expect.stringMatching(/^the previous key works until .+ \(24 hours’ grace\)$/),
    ]);
    expect(detailsInWords('rotate', { grace_s: 0, previous_key_expires_at: new Date().toISOString(), prefix: 'p' })).toEqual([
      'new key p…',
      'the previous key stopped working at once',
    ]);
    expect(detailsInWords('restrict', { changed: [] })).toEqual(['saved without a change']);
    expect(detailsInWords('revoke', {})).toEqual([]);
  });

  it('names who: the operator, the command line, you, a member by email, a former member by id', () => {
    const me = { id: 'usr_1', email: 'ada@example.com' };
    const emails = new Map([['usr_2', 'grace@example.com']]);
    expect(actorInWords('admin', me, emails)).toBe('An operator (admin API)');
    expect(actorInWords('cli', me, emails)).toBe('The command line');
    expect(actorInWords('user:usr_1', me, emails)).toBe('You (ada@example.com)');
    expect(actorInWords('user:usr_2', me, emails)).toBe('grace@example.com');
    expect(actorInWords('user:usr_9', me, emails)).toBe('A former member (usr_9)');
  });
});
