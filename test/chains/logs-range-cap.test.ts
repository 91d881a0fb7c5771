import { describe, expect, it } from 'vitest';
import { rangeCapIn } from '../../src/chains/logs-range-cap.ts';
import { isRangeTooLargeMessage } from '../../src/chains/range-too-large.ts';

describe("the eth_getLogs range cap, in each provider's own words", () => {
  it.each([
    [
      'You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x1a2b, 0x1e13]',
      2000,
    ],
    [
      'You can make eth_getLogs requests with up to a 2000 block range. Based on your parameters, this block range should work: [0x10, 0x7df]',
      2000,
    ],
    ['eth_getLogs is limited to a 10,000 range', 10_000],
    ['exceed maximum block range 5000', 5000],
    ['exceed maximum block range: 3000', 3000],
    ['maximum [from, to] blocks distance: 1000', 1000],
    ['range 20000 exceeds limit of 10000', 10_000],
    ['block range is too wide, max 3000', 3000],
    ['Max range: 800', 800],
    ['query returned more than 10000 results. Try with this block range [0x10, 0x271F].', undefined],
    ['Log response size exceeded.', undefined],
  ])('%s -> %s', (message, cap) => {
    expect(isRangeTooLargeMessage(message)).toBe(true);
    expect(rangeCapIn(message)).toBe(cap);
  });
});
