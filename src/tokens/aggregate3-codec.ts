import type { Hex } from 'viem';
import type { RawCall, RawResult } from './raw-call.ts';

/**
 * Multicall3 `aggregate3` calldata and results, encoded by hand: viem's generic ABI coder spends
 * about 5 ms on a hundred calls, a third of the balances API's latency budget. Checked against
 * viem's coder in test/tokens/aggregate3-codec.test.ts.
 */
const aggregate3Selector = '82ad56cb';
const trueWord = `${'0'.repeat(63)}1`;

const word = (value: number) => value.toString(16).padStart(64, '0');

export function encodeAggregate3(calls: readonly RawCall[]): Hex {
  const heads: string[] = [];
  const tails: string[] = [];
  let offset = calls.length * 32;
  for (const call of calls) {
    const data = call.callData.slice(2);
    const length = data.length / 2;
    const padded = data.padEnd(Math.ceil(length / 32) * 64, '0');
    heads.push(word(offset));
    tails.push(`${call.target.slice(2).toLowerCase().padStart(64, '0')}${trueWord}${word(0x60)}${word(length)}${padded}`);
    offset += 128 + padded.length / 2;
  }
  return `0x${aggregate3Selector}${word(0x20)}${word(calls.length)}${heads.join('')}${tails.join('')}`;
}

/** Decodes `(bool success, bytes returnData)[]`; throws on data that is not that shape. */
export function decodeAggregate3(data: Hex): RawResult[] {
  const hex = data.slice(2);
  const byteLength = hex.length / 2;
  const readWord = (at: number): number => {
    if (at + 32 > byteLength) throw new Error('aggregate3 result is truncated');
    const text = hex.slice(at * 2, at * 2 + 64);
    // Offsets and lengths beyond 2^48 cannot be real in a result this size.
    if (!/^0{52}/.test(text)) throw new Error('aggregate3 result has an impossible offset');
    return Number.parseInt(text.slice(52), 16);
  };
  const array = readWord(0);
  const count = readWord(array);
  const items = array + 32;
  const results: RawResult[] = [];
  for (let index = 0; index < count; index++) {
    const tuple = items + readWord(items + index * 32);
    const success = readWord(tuple) === 1;
    const bytesAt = tuple + readWord(tuple + 32);
    const length = readWord(bytesAt);
    if (bytesAt + 32 + length > byteLength) throw new Error('aggregate3 result is truncated');
    results.push({ success, returnData: `0x${hex.slice((bytesAt + 32) * 2, (bytesAt + 32 + length) * 2)}` });
  }
  return results;
}
