import { describe, expect, it } from 'vitest';
import { isBlockRead, pinLatest } from '../../src/chains/pin-latest.ts';

describe('pinLatest: a block read at latest is sent for the block at the served tip', () => {
  it.each([
    ['eth_getBlockByNumber', ['latest', false], ['0x12', false]],
    ['eth_getBlockReceipts', ['latest'], ['0x12']],
    ['eth_getBlockTransactionCountByNumber', ['latest'], ['0x12']],
    ['eth_getTransactionByBlockNumberAndIndex', ['latest', '0x0'], ['0x12', '0x0']],
    ['eth_getUncleCountByBlockNumber', ['latest'], ['0x12']],
    ['eth_getUncleByBlockNumberAndIndex', ['latest', '0x0'], ['0x12', '0x0']],
  ])('%s %j → %j', (method, params, pinned) => {
    expect(isBlockRead(method)).toBe(true);
    expect(pinLatest(method, params, 18)).toEqual(pinned);
    // The client's params are left as they were: the cache keys the answer by them.
    expect(params[0]).toBe('latest');
  });

  it.each([
    ['an explicit number', 'eth_getBlockByNumber', ['0x5', false], 18],
    ['pending: a block above the tip', 'eth_getBlockByNumber', ['pending', false], 18],
    ['safe', 'eth_getBlockByNumber', ['safe', false], 18],
    ['no block (the node answers its own error)', 'eth_getBlockByNumber', [], 18],
    ['no tip yet', 'eth_getBlockByNumber', ['latest', false], -1],
    ['a read that is not of a block', 'eth_getBalance', ['0x00000000000000000000000000000000000000aa', 'latest'], 18],
    ['params as an object', 'eth_getBlockByNumber', { block: 'latest' }, 18],
  ])('leaves %s alone', (_what, method, params, tip) => {
    expect(pinLatest(method, params, tip)).toBeUndefined();
  });
});
