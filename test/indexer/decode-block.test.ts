import { encodeAbiParameters, type Hex, pad } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeBlock, transferBatchTopic, transferSingleTopic, transferTopic } from '../../src/indexer/decode-block.ts';
import type { BlockBundle, RawLog, RawTrace } from '../../src/indexer/raw-types.ts';

const alice = '0x00000000000000000000000000000000000a11ce';
const bob = '0x0000000000000000000000000000000000000b0b';
const token = '0x00000000000000000000000000000000000070cc';
const zero = '0x0000000000000000000000000000000000000000';
const word = (value: bigint): Hex => pad(`0x${value.toString(16)}`, { size: 32 });
const topicOf = (address: string): Hex => pad(address as Hex, { size: 32 });

function log(partial: Partial<RawLog> & { topics: Hex[] }, index: number, tx = '0xaa'): RawLog {
  return {
    address: token,
    data: '0x',
    logIndex: `0x${index.toString(16)}`,
    transactionHash: tx as Hex,
    transactionIndex: '0x0',
    ...partial,
  } as RawLog;
}

function bundle(logs: RawLog[], options: { status?: Hex; value?: Hex; traces?: RawTrace[] } = {}): BlockBundle {
  return {
    block: {
      number: '0x10',
      hash: '0xB1',
      parentHash: '0xB0',
      timestamp: '0x64',
      gasUsed: '0x5208',
      transactions: [{ hash: '0xAA', from: alice, to: bob, value: options.value ?? '0x0', transactionIndex: '0x0' }],
    },
    receipts: [{ transactionHash: '0xaa', status: options.status ?? '0x1', contractAddress: null, logs }],
    traces: options.traces,
  };
}

describe('decodeBlock', () => {
  it('tells ERC-20 from ERC-721 Transfer logs by their shape', () => {
    const facts = decodeBlock(
      bundle([
        log({ topics: [transferTopic, topicOf(alice), topicOf(bob)], data: word(10n ** 30n) }, 0),
        log({ topics: [transferTopic, topicOf(zero), topicOf(bob), word(7n)] }, 1),
      ]),
    );
    expect(facts.number).toBe(16);
    expect(facts.hash).toBe('0xb1');
    expect(facts.timestamp.toISOString()).toBe('1970-01-01T00:01:40.000Z');
    expect(facts.tokenTransfers).toEqual([
      { contract: token, from: alice, to: bob, value: 10n ** 30n, logIndex: 0, transactionHash: '0xaa' },
    ]);
    expect(facts.nftTransfers).toMatchObject([{ standard: 'ERC721', from: zero, to: bob, tokenId: 7n, amount: 1n, logIndex: 1 }]);
    expect(facts.logs).toHaveLength(2);
  });

  it('decodes ERC-1155 single and batch transfers, one row per id', () => {
    const facts = decodeBlock(
      bundle([
        log(
          {
            topics: [transferSingleTopic, topicOf(alice), topicOf(alice), topicOf(bob)],
            data: encodeAbiParameters([{ type: 'uint256' }, { type: 'uint256' }], [5n, 3n]),
          },
          0,
        ),
        log(
          {
            topics: [transferBatchTopic, topicOf(alice), topicOf(zero), topicOf(alice)],
            data: encodeAbiParameters(
              [{ type: 'uint256[]' }, { type: 'uint256[]' }],
              [
                [1n, 2n],
                [10n, 20n],
              ],
            ),
          },
          1,
        ),
      ]),
    );
    expect(facts.nftTransfers.map((t) => [t.standard, t.from, t.to, t.tokenId, t.amount, t.batchIndex, t.operator])).toEqual([
      ['ERC1155', alice, bob, 5n, 3n, 0, alice],
      ['ERC1155', zero, alice, 1n, 10n, 0, alice],
      ['ERC1155', zero, alice, 2n, 20n, 1, alice],
    ]);
  });

  it('leaves malformed transfer-like logs as plain logs', () => {
    const facts = decodeBlock(
      bundle([
        log({ topics: [transferTopic, topicOf(alice)], data: word(1n) }, 0),
        log({ topics: [transferSingleTopic, topicOf(alice), topicOf(alice), topicOf(bob)], data: '0x1234' }, 1),
        log(
          {
            topics: [transferBatchTopic, topicOf(alice), topicOf(alice), topicOf(bob)],
            data: encodeAbiParameters([{ type: 'uint256[]' }, { type: 'uint256[]' }], [[1n], [1n, 2n]]),
          },
          2,
        ),
      ]),
    );
    expect(facts.tokenTransfers).toEqual([]);
    expect(facts.nftTransfers).toEqual([]);
    expect(facts.logs).toHaveLength(3);
  });

  it('records native value of successful transactions only, and no facts of a reverted one', () => {
    expect(decodeBlock(bundle([], { value: '0x64' })).nativeTransfers).toEqual([
      { from: alice, to: bob, value: 100n, transactionHash: '0xaa' },
    ]);
    const reverted = decodeBlock(
      bundle([log({ topics: [transferTopic, topicOf(alice), topicOf(bob)], data: word(1n) }, 0)], {
        status: '0x0',
        value: '0x64',
      }),
    );
    expect(reverted.transactions[0]?.status).toBe(0);
    expect([reverted.nativeTransfers, reverted.tokenTransfers, reverted.logs]).toEqual([[], [], []]);
  });

  it('takes internal transfers from traces, skipping the top call, zero values and reverted frames', () => {
    const call = (traceAddress: number[], value: Hex, extra: Partial<RawTrace> = {}): RawTrace => ({
      type: 'call',
      action: { callType: 'call', from: alice, to: bob, value },
      traceAddress,
      transactionHash: '0xaa',
      ...extra,
    });
    const facts = decodeBlock(
      bundle([], {
        traces: [
          call([], '0x5'),
          call([0], '0x3'),
          call([1], '0x0'),
          call([2], '0x4', { error: 'Reverted' }),
          call([2, 0], '0x1'),
          call([3], '0x2', { action: { callType: 'delegatecall', from: alice, to: bob, value: '0x2' } }),
        ],
      }),
    );
    expect(facts.internalTransfers).toEqual([
      { from: alice, to: bob, value: 3n, transactionHash: '0xaa', callType: 'call', tracePath: '0' },
    ]);
  });
});
