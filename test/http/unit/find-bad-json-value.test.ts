import { describe, expect, it } from 'vitest';
import { findBadJsonValue } from '../../../src/http/input-rules.ts';

describe('findBadJsonValue', () => {
  it('names the path of a NUL, an unpaired surrogate, a bad key and an infinite number', () => {
    expect(findBadJsonValue({ config: { addresses: ['0x1', 'a\u0000b'] } })).toEqual({
      path: 'config.addresses[1]',
      problem: 'must not contain NUL characters (U+0000)',
    });
    expect(findBadJsonValue([{ name: '\ud800' }])?.path).toBe('[0].name');
    expect(findBadJsonValue({ rules: { 'a\u0000': 1 } })?.path).toBe('rules.a\u0000');
    expect(findBadJsonValue({ limit: Number.POSITIVE_INFINITY })?.path).toBe('limit');
    expect(findBadJsonValue({ fine: ['text', 1, null, { nested: true }] })).toBeUndefined();
  });

  // Copying the path at each level cost depth squared: minutes at this depth, past the test's timeout.
  it('walks a body nested 100,000 levels deep', () => {
    let body: unknown = 'x\u0000';
    for (let depth = 0; depth < 100_000; depth++) body = [body];
    expect(findBadJsonValue(body)?.path).toBe('[0]'.repeat(100_000));
  });
});
