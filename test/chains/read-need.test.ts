import { describe, expect, it } from 'vitest';
import { readNeedOf } from '../../src/chains/read-need.ts';

const hash = `0x${'ab'.repeat(32)}`;
const address = `0x${'12'.repeat(20)}`;

describe('readNeedOf: what a call reads of the chain', () => {
  it.each([
    ['eth_getBlockByNumber', ['0x10', false], { block: 16, oldest: 16, atTip: false, byHash: false }],
    ['eth_getBlockByNumber', ['latest', false], { block: -1, atTip: true }],
    ['eth_getBlockByNumber', ['pending', false], { block: -1, atTip: true }],
    ['eth_getBlockByNumber', ['finalized', false], { block: -1, atTip: false, byHash: false }],
    ['eth_getBlockByNumber', ['earliest', false], { block: 0, oldest: 0, atTip: false }],
    ['eth_getBalance', [address], { block: -1, atTip: true }],
    ['eth_getBalance', [address, '0x1'], { block: 1, oldest: 1, atTip: false }],
    ['eth_getBalance', [address, { blockNumber: '0x20' }], { block: 32, atTip: false }],
    ['eth_getBalance', [address, { blockHash: hash }], { block: -1, byHash: true }],
    ['eth_call', [{ to: address }, '0xff'], { block: 255 }],
    ['eth_getStorageAt', [address, '0x0', '0x5'], { block: 5 }],
    ['eth_getBlockReceipts', [hash], { block: -1, byHash: true }],
    ['eth_getTransactionReceipt', [hash], { block: -1, byHash: true, atTip: false }],
    ['eth_getTransactionByHash', [hash], { byHash: true }],
    ['debug_traceTransaction', [hash], { byHash: true }],
    ['trace_block', ['0x7'], { block: 7 }],
    ['eth_blockNumber', [], { block: -1, atTip: true }],
    ['eth_chainId', [], { block: -1, atTip: false, byHash: false }],
    ['eth_sendRawTransaction', ['0x02'], { atTip: false }],
  ])('%s %j', (method, params, expected) => {
    expect(readNeedOf(method, params)).toMatchObject({ method, ...expected });
  });

  it('reads an eth_getLogs range: its last block, first block and whether it ends at the tip', () => {
    expect(readNeedOf('eth_getLogs', [{ fromBlock: '0x10', toBlock: '0x20' }])).toMatchObject({
      block: 32,
      oldest: 16,
      logsFrom: 16,
      atTip: false,
    });
    expect(readNeedOf('eth_getLogs', [{ fromBlock: '0x10' }])).toMatchObject({ block: -1, logsFrom: 16, atTip: true });
    expect(readNeedOf('eth_getLogs', [{ blockHash: hash }])).toMatchObject({ byHash: true, logsFrom: -1 });
    expect(readNeedOf('eth_getLogs', [{}])).toMatchObject({ atTip: true, logsFrom: -1 });
  });

  it('treats an unknown method, or params it cannot read, as a read at the tip (the safe side)', () => {
    expect(readNeedOf('foo_bar', [])).toMatchObject({ atTip: true, block: -1 });
    expect(readNeedOf('eth_getBalance', 'not an array')).toMatchObject({ atTip: true });
    expect(readNeedOf('eth_getBlockByNumber', ['0xnothex'])).toMatchObject({ block: -1, atTip: false });
  });
});
