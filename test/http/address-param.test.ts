import { describe, expect, it } from 'vitest';
import { parseAddressParam } from '../../src/http/address-param.ts';

describe('address path parameters', () => {
  it('accepts lower, upper and correctly checksummed addresses, lower-cased', () => {
    const lower = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
    expect(parseAddressParam('address', lower)).toBe(lower);
    expect(parseAddressParam('address', '0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266')).toBe(lower);
    expect(parseAddressParam('address', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(lower);
  });

  it('refuses malformed addresses and failed checksums with a 400 naming the parameter', () => {
    for (const bad of [
      '0x1234',
      'f39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      '0xg39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      'vitalik.eth',
    ]) {
      expect(() => parseAddressParam('contract', bad)).toThrow(
        expect.objectContaining({ status: 400, message: expect.stringMatching(/'contract'.*40 hex digits/) }),
      );
    }
    expect(() => parseAddressParam('address', '0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266')).toThrow(
      /'address'.*EIP-55 checksum/,
    );
  });
});
