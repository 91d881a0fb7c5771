import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { checksumAddress, checksumAddressesInJson } from '../../src/core/address-checksum.ts';

describe('checksumAddress (EIP-55 with a WebAssembly Keccak)', () => {
  it("gives EIP-55's own examples", () => {
    for (const expected of [
      '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
      '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    ]) {
      expect(checksumAddress(expected.toLowerCase())).toBe(expected);
      expect(checksumAddress(expected.toUpperCase().replace('0X', '0x'))).toBe(expected);
    }
  });

  it("equals viem's getAddress for 5,000 random addresses, digits-only ones and the edges", () => {
    const addresses = [
      `0x${'0'.repeat(40)}`,
      `0x${'f'.repeat(40)}`,
      `0x${'1234567890'.repeat(4)}`,
      ...Array.from({ length: 5000 }, () => `0x${randomBytes(20).toString('hex')}`),
    ];
    for (const address of addresses) expect(checksumAddress(address)).toBe(getAddress(address));
  });

  it('checksums every quoted address of a holders page in place, as getAddress on each would, and nothing else', () => {
    const owners = Array.from({ length: 300 }, () => `0x${randomBytes(20).toString('hex')}`);
    const plain = JSON.stringify(owners);
    expect(checksumAddressesInJson(plain)).toBe(JSON.stringify(owners.map((owner) => getAddress(owner))));
    const withBalances = JSON.stringify(
      owners.map((owner, i) => ({ ownerAddress: owner, tokenBalances: [{ tokenId: String(i), balance: '1' }] })),
    );
    expect(JSON.parse(checksumAddressesInJson(withBalances))).toEqual(
      owners.map((owner, i) => ({ ownerAddress: getAddress(owner), tokenBalances: [{ tokenId: String(i), balance: '1' }] })),
    );
    const lower = owners[0]!;
    const untouched = [
      `"${lower.slice(0, 41)}"`, // 39 digits
      `"${lower}0"`, // 41 digits
      `"${lower}x"`, // more after the digits
      lower, // not a string
      `"${lower.toUpperCase().replace('0X', '0x')}"`, // not lower case
      '"0x"',
      '"0x',
      '',
    ];
    for (const text of untouched) expect(checksumAddressesInJson(text), text).toBe(text);
    expect(checksumAddressesInJson(`{"a":"é","b":"${lower}"}`)).toBe(`{"a":"é","b":"${getAddress(lower)}"}`);
  });

  it('refuses what is not a 20-byte hex address', () => {
    for (const bad of ['', '0x', '0x1234', `0x${'g'.repeat(40)}`, `${'a'.repeat(42)}`, `0x${'a'.repeat(41)}`]) {
      expect(() => checksumAddress(bad), bad).toThrow(/not a 20-byte hex address/);
    }
  });
});
