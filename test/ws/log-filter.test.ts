import { describe, expect, it } from 'vitest';
import { matchesLogFilter, parseLogFilter } from '../../src/ws/log-filter.ts';

const address = `0x${'aa'.repeat(20)}`;
const t1 = `0x${'11'.repeat(32)}`;
const t2 = `0x${'22'.repeat(32)}`;
const t3 = `0x${'33'.repeat(32)}`;
const log = { address, topics: [t1, t2] };

describe('logs filter (eth_getLogs semantics)', () => {
  it.each([
    [{}, true],
    [{ address: address.toUpperCase().replace('0X', '0x') }, true],
    [{ address: [`0x${'bb'.repeat(20)}`, address] }, true],
    [{ address: `0x${'bb'.repeat(20)}` }, false],
    [{ topics: [t1] }, true],
    [{ topics: [null, t2] }, true],
    [{ topics: [[t3, t1], [t2]] }, true],
    [{ topics: [t2] }, false],
    [{ topics: [null, null, null] }, false],
    [{ topics: [[t1, null]] }, true],
  ])('%j matches: %s', (filter, expected) => {
    expect(matchesLogFilter(parseLogFilter(filter), log)).toBe(expected);
  });

  it.each([
    [[], /must be an object/],
    [{ address: 12 }, /'address'/],
    [{ topics: 'x' }, /'topics': must be an array/],
    [{ topics: [null, null, null, null, null] }, /at most 4/],
    [{ fromBlock: '0x1' }, /unknown logs filter key 'fromBlock'/],
  ])('refuses %j', (filter, message) => {
    expect(() => parseLogFilter(filter)).toThrow(message);
  });
});
