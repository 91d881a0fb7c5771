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
    [{ blockHash: `0x${'11'.repeat(32)}` }, /'blockHash': a subscription sends the logs of blocks still to come/],
    [{ fromBlock: 'newest' }, /'fromBlock': "newest" is not a hex block number or one of earliest, latest/],
    [{ toBlock: 12 }, /'toBlock': 12 is not a hex block number/],
    [{ fromBlock: '0x10', toBlock: '0xf' }, /fromBlock 0x10 is after toBlock 0xf/],
    [{ fromblock: '0x1' }, /unknown logs filter key 'fromblock': expected address, topics, fromBlock and toBlock/],
  ])('refuses %j', (filter, message) => {
    expect(() => parseLogFilter(filter)).toThrow(message);
  });

  it('takes the bounds Foundry and alloy send: tags bound nothing, block numbers bound the blocks whose logs are sent', () => {
    const at = (blockNumber: string | null) => ({ ...log, blockNumber });
    const cast = parseLogFilter({ fromBlock: 'earliest', toBlock: 'latest', topics: [] });
    expect(cast).toEqual({ addresses: undefined, topics: [] });
    expect(matchesLogFilter(cast, at('0x5'))).toBe(true);
    for (const tag of ['pending', 'safe', 'finalized'])
      expect(parseLogFilter({ fromBlock: tag, toBlock: tag })).toEqual({ topics: [] });
    const bounded = parseLogFilter({ address, fromBlock: '0xa', toBlock: '0xc' });
    expect(['0x9', '0xa', '0xb', '0xc', '0xd'].map((block) => matchesLogFilter(bounded, at(block)))).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
    expect(matchesLogFilter(parseLogFilter({ fromBlock: '0xa' }), at('0x1000'))).toBe(true);
    expect(matchesLogFilter(parseLogFilter({ toBlock: '0xa' }), at('0xb'))).toBe(false);
    expect(matchesLogFilter(bounded, at(null))).toBe(false);
  });
});
