import { describe, expect, it } from 'vitest';
import { blockEvents } from '../../src/indexer/block-events.ts';
import type { BlockFacts } from '../../src/indexer/decode-block.ts';

const tx = '0xaa';
const base: BlockFacts = {
  number: 7,
  hash: '0xb7',
  parentHash: '0xb6',
  timestamp: new Date('2026-11-23T00:00:00Z'),
  gasUsed: 21000n,
  transactions: [{ hash: tx, index: 0, from: '0x01', to: '0x02', value: 0n, status: 1, contractCreated: null, selector: null }],
  logs: [
    { address: '0x0c', topics: ['0xddf2', '0x01', '0x02'], data: '0x05', logIndex: 0, transactionHash: tx, transactionIndex: 0 },
    { address: '0x0d', topics: ['0x1234'], data: '0x', logIndex: 1, transactionHash: tx, transactionIndex: 0 },
  ],
  tokenTransfers: [{ contract: '0x0c', from: '0x01', to: '0x02', value: 5n, logIndex: 0, transactionHash: tx }],
  nftTransfers: [],
  nativeTransfers: [],
  internalTransfers: [],
};

describe('blockEvents', () => {
  it('stores a transfer log once, as the transfer carrying the raw log, and every other log as a log', () => {
    const events = blockEvents(base);
    expect(events.map((e) => e.type)).toEqual(['block', 'transaction', 'log', 'token_transfer']);
    expect(events[2]?.data).toMatchObject({ address: '0x0d', log_index: 1 });
    expect(events[3]?.data).toEqual({
      contract: '0x0c',
      from: '0x01',
      to: '0x02',
      value: '5',
      log_index: 0,
      transaction_hash: tx,
      topics: ['0xddf2', '0x01', '0x02'],
      data: '0x05',
      transaction_index: 0,
    });
    expect(events.every((e) => e.blockNumber === 7 && e.blockHash === '0xb7')).toBe(true);
  });
});
