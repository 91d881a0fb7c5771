import { describe, expect, it } from 'vitest';
import { formatDecimal, parseDecimal, usdDecimals, usdValue } from '../../src/tokens/usd-value.ts';

describe('exact USD arithmetic', () => {
  it('parses and prints plain decimals exactly', () => {
    expect(parseDecimal('1234.5678')).toEqual({ units: 12345678n, scale: 4 });
    expect(parseDecimal('7')).toEqual({ units: 7n, scale: 0 });
    expect(formatDecimal(parseDecimal('1.50'))).toBe('1.5');
    expect(formatDecimal(parseDecimal('0.000000000000000001'))).toBe('0.000000000000000001');
    for (const bad of ['', '-1', '1e5', '1.', '.5', ' 1', '0x10', 'NaN'])
      expect(() => parseDecimal(bad)).toThrow(/not a non-negative decimal/);
  });

  it('multiplies amount by price without floating point', () => {
    // 1.5 tokens of 18 decimals at 2000.25 USD
    expect(usdValue(1_500_000_000_000_000_000n, 18, '2000.25')).toBe('3000.375');
    // 0.1 + 0.2 style values stay exact: 0.3 tokens x 0.1 USD = 0.03
    expect(usdValue(3n * 10n ** 17n, 18, '0.1')).toBe('0.03');
    // A value far beyond a double's precision.
    const huge = 123_456_789_012_345_678_901_234_567_890n;
    expect(usdValue(huge, 0, '1')).toBe(huge.toString());
    expect(usdValue(huge * 10n ** 18n + 1n, 18, '3')).toBe(`${huge * 3n}`);
    expect(usdValue(0n, 18, '5')).toBe('0');
  });

  it(`rounds half up to ${usdDecimals} decimals`, () => {
    // 1 smallest unit of a 6-decimal token at 0.5 USD = 0.0000005 -> 0.000001 (half up)
    expect(usdValue(1n, 6, '0.5')).toBe('0.000001');
    // 0.00000049 -> 0
    expect(usdValue(49n, 8, '0.01')).toBe('0');
    // 0.0000015 -> 0.000002; 0.0000014999 -> 0.000001
    expect(usdValue(15n, 7, '1')).toBe('0.000002');
    expect(usdValue(14_999n, 10, '1')).toBe('0.000001');
    // Fewer decimals than usdDecimals: no division at all.
    expect(usdValue(12n, 0, '0.25')).toBe('3');
    expect(usdValue(5n, 2, '1.1')).toBe('0.055');
  });
});
