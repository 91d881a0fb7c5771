import { encodeAbiParameters, padHex, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeTokenText, decodeWord, maxTokenTextLength } from '../../src/tokens/token-text.ts';

describe('token name and symbol decoding', () => {
  it('decodes ABI strings', () => {
    expect(decodeTokenText(encodeAbiParameters([{ type: 'string' }], ['Wrapped Ether']))).toBe('Wrapped Ether');
    expect(decodeTokenText(encodeAbiParameters([{ type: 'string' }], ['Ünïcødé €']))).toBe('Ünïcødé €');
    expect(decodeTokenText(encodeAbiParameters([{ type: 'string' }], ['']))).toBe('');
  });

  it('decodes bytes32 names of old tokens (MKR) and drops the NUL padding', () => {
    expect(decodeTokenText(padHex(stringToHex('MKR'), { dir: 'right', size: 32 }))).toBe('MKR');
    expect(decodeTokenText(padHex(stringToHex('Maker'), { dir: 'right', size: 32 }))).toBe('Maker');
  });

  it('refuses answers that are neither, and cuts hostile lengths and control characters', () => {
    expect(decodeTokenText('0x')).toBeUndefined();
    expect(decodeTokenText('0x1234')).toBeUndefined();
    // 64 bytes whose offset points outside the data
    expect(decodeTokenText(`0x${'ff'.repeat(64)}`)).toBeUndefined();
    const long = decodeTokenText(encodeAbiParameters([{ type: 'string' }], ['A'.repeat(10_000)]));
    expect(long).toHaveLength(maxTokenTextLength);
    expect(decodeTokenText(encodeAbiParameters([{ type: 'string' }], ['\u0000Bad\nToken\u0007']))).toBe('BadToken');
  });

  it('reads the first word as an unsigned integer', () => {
    expect(decodeWord(encodeAbiParameters([{ type: 'uint256' }], [18n]))).toBe(18n);
    expect(decodeWord('0x12')).toBeUndefined();
    expect(decodeWord('0x')).toBeUndefined();
  });
});
