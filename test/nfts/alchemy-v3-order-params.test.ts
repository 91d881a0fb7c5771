import { describe, expect, it } from 'vitest';
import { acquisitionBlockOf, acquisitionKeyOf, ownerOrder } from '../../src/nfts/alchemy-v3/params.ts';

describe("the owner methods' orderBy and their transferTime page keys", () => {
  it('takes transferTime as the REST docs and alchemy-sdk spell it, and nothing else', () => {
    expect(ownerOrder(undefined)).toBeUndefined();
    expect(ownerOrder('transferTime')).toBe('transferTime');
    expect(ownerOrder('TRANSFERTIME')).toBe('transferTime');
    for (const bad of ['transfertime', 'TransferTime', '', 'contractAddress', 1, ['transferTime']]) {
      expect(() => ownerOrder(bad), String(bad)).toThrow(/'orderBy'/);
    }
  });

  it("reads a page key's acquisition block: a block number a bigint holds, or x for unknown", () => {
    expect(acquisitionBlockOf('x')).toBeNull();
    expect(acquisitionBlockOf('0')).toBe(0);
    expect(acquisitionBlockOf('123456789012345')).toBe(123456789012345);
    expect(acquisitionKeyOf(['42', '0xabc', '7'])).toEqual({ block: 42, contract: '0xabc', tokenId: '7' });
    // A key forged with a valid fingerprint still cannot reach the database with a number it refuses.
    for (const bad of ['1234567890123456', '99999999999999999999', '-1', '1e3', '0x10', '', undefined]) {
      expect(() => acquisitionBlockOf(bad), String(bad)).toThrow(/'pageKey'/);
    }
  });
});
