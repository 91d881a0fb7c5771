import { describe, expect, it } from 'vitest';
import { parseTokenId } from '../../src/nfts/params.ts';

describe('parseTokenId', () => {
  it('reads decimal and 0x-hex uint256 values', () => {
    expect(parseTokenId('0')).toBe(0n);
    expect(parseTokenId('42')).toBe(42n);
    expect(parseTokenId('0x2a')).toBe(42n);
    const max = (1n << 256n) - 1n;
    expect(parseTokenId(max.toString())).toBe(max);
    expect(parseTokenId(`0x${'f'.repeat(64)}`)).toBe(max);
  });

  it.each(['', 'abc', '-1', '1.5', '1e3', '01', ' 1', '0x', '0xg1', (1n << 256n).toString(), `0x1${'0'.repeat(64)}`])(
    'refuses %j naming token_id',
    (text) => {
      expect(() => parseTokenId(text)).toThrow(/invalid parameter 'token_id'/);
    },
  );
});
