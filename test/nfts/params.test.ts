import { describe, expect, it } from 'vitest';
import { parseAddress, parseTokenId } from '../../src/nfts/params.ts';

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

describe('parseAddress', () => {
  it('lower-cases a valid address and checks the EIP-55 checksum of mixed case', () => {
    expect(parseAddress('contract', '0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266')).toBe(
      '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
    );
    expect(parseAddress('contract', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(
      '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
    );
    expect(() => parseAddress('contract', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267')).toThrow(/'contract'.*EIP-55/);
  });

  it('refuses malformed addresses naming the parameter', () => {
    for (const text of ['0x123', 'f39fd6e51aad88f6f4ce6ab8827279cfffb92266', '0xzz9fd6e51aad88f6f4ce6ab8827279cfffb92266']) {
      expect(() => parseAddress('address', text)).toThrow(/invalid parameter 'address'/);
    }
  });
});
