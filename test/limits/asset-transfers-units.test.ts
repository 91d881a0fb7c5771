import { describe, expect, it } from 'vitest';
import { computeUnitsFor } from '../../src/limits/compute-units.ts';

const all = ['external', 'internal', 'erc20', 'erc721', 'erc1155'];
const units = (params: Record<string, unknown>) => computeUnitsFor('alchemy_getAssetTransfers', [params]);

describe("alchemy_getAssetTransfers' compute units follow the rows it may read", () => {
  it('grows with maxCount, the tables the categories read and the contracts read one by one', () => {
    expect(units({ fromAddress: '0xa', category: ['erc20'], maxCount: '0x64' })).toBe(21);
    expect(units({ fromAddress: '0xa', category: all })).toBe(60);
    expect(units({ fromAddress: '0xa', category: all, maxCount: 10 })).toBe(21);
    const tenTokens = Array.from({ length: 10 }, (_, i) => `0x${i}`);
    expect(units({ contractAddresses: tenTokens, category: ['erc20'] })).toBe(120);
    // An address bounds the read whatever the contracts: they are a filter of its rows.
    expect(units({ fromAddress: '0xa', contractAddresses: tenTokens, category: ['erc20'] })).toBe(30);
  });

  it('never costs more than 200 (the free plan can make every call) and costs the base when unreadable', () => {
    const many = Array.from({ length: 10 }, (_, i) => `0x${i}`);
    expect(units({ contractAddresses: many, category: all })).toBe(200);
    expect(computeUnitsFor('alchemy_getAssetTransfers', 'nonsense')).toBe(20);
    expect(units({ category: 'erc20', maxCount: 'lots' })).toBe(30);
  });
});
