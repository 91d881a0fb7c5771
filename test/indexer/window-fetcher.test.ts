import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { createBatchSizer } from '../../src/indexer/batch-sizer.ts';
import type { BlockFacts } from '../../src/indexer/decode-block.ts';
import type { BlockBundle } from '../../src/indexer/raw-types.ts';
import { createWindowFetcher } from '../../src/indexer/window-fetcher.ts';

/** A block of `transactions` transactions with `logsEach` logs each, as a node serves it with its receipts. */
function bundle(number: number, transactions: number, logsEach: number): BlockBundle {
  const hex = (n: number): Hex => `0x${n.toString(16)}`;
  const hash = (n: number): Hex => `0x${n.toString(16).padStart(64, '0')}`;
  const txHash = (i: number): Hex => `0x${(number * 10_000 + i).toString(16).padStart(64, '0')}`;
  const from: Hex = `0x${'11'.repeat(20)}`;
  const to: Hex = `0x${'22'.repeat(20)}`;
  return {
    block: {
      number: hex(number),
      hash: hash(number),
      parentHash: hash(number - 1),
      timestamp: hex(1_700_000_000 + number),
      gasUsed: '0x0',
      transactions: Array.from({ length: transactions }, (_, i) => ({
        hash: txHash(i),
        from,
        to,
        value: '0x0',
        input: '0x',
        transactionIndex: hex(i),
      })),
    },
    receipts: Array.from({ length: transactions }, (_, i) => ({
      transactionHash: txHash(i),
      transactionIndex: hex(i),
      status: '0x1',
      contractAddress: null,
      logs: Array.from({ length: logsEach }, (_, j) => ({
        address: to,
        topics: [`0x${'ab'.repeat(32)}` as Hex],
        data: '0x',
        logIndex: hex(i * logsEach + j),
        transactionIndex: hex(i),
        transactionHash: txHash(i),
      })),
    })),
  };
}

/** A reader over blocks of the given size that records each batch asked for and how many ran at once. */
function recordingReader(size: (number: number) => { transactions: number; logsEach: number }, failAt?: number) {
  const asked: [number, number][] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  return {
    asked,
    mostInFlight: () => mostInFlight,
    async bundles(from: number, to: number) {
      asked.push([from, to]);
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      if (failAt !== undefined && from <= failAt && failAt <= to) throw new Error(`block ${failAt} unavailable`);
      const blocks: BlockBundle[] = [];
      for (let n = from; n <= to; n++) blocks.push(bundle(n, size(n).transactions, size(n).logsEach));
      return blocks;
    },
  };
}

const facts = (transactions: number, logsEach: number) =>
  ({ transactions: new Array(transactions), logs: new Array(transactions * logsEach) }) as unknown as BlockFacts;

describe('batch sizes follow the blocks (a batch of busy blocks is tens of megabytes to parse)', () => {
  it('asks for as many blocks as hold about 6,000 transactions and logs, between 1 and the most allowed', () => {
    const sizer = createBatchSizer(25);
    expect(sizer.blocks()).toBe(25);
    sizer.learn([facts(300, 3), facts(300, 3)]); // 1,200 a block
    expect(sizer.blocks()).toBe(5);
    sizer.learn([facts(5_000, 3)]);
    expect(sizer.blocks()).toBe(1);
    sizer.learn([facts(2, 1), facts(0, 0)]); // quiet blocks: back to the most
    expect(sizer.blocks()).toBe(25);
    sizer.learn([]);
    expect(sizer.blocks()).toBe(25);
  });
});

describe('the window fetcher', () => {
  it('sizes each batch when it asks for it, keeps at most the allowed number in flight, and answers in block order', async () => {
    // Blocks from 40 on are busy (300 transactions, 3 logs each: 1,200 items), the ones before quiet.
    const reader = recordingReader((n) => (n >= 40 ? { transactions: 300, logsEach: 3 } : { transactions: 1, logsEach: 0 }));
    const sizer = createBatchSizer(25);
    const fetcher = createWindowFetcher(reader, sizer, 2);
    const window = await fetcher.take(1, 80);
    expect(window.map((block) => block.number)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(reader.mostInFlight()).toBe(2);
    // Two batches of 25 quiet blocks first; the batch reaching into the busy ones sizes the rest at 5.
    expect(reader.asked.slice(0, 3)).toEqual([
      [1, 25],
      [26, 50],
      [51, 75],
    ]);
    expect(sizer.blocks()).toBe(5);
    const more = await fetcher.take(81, 100);
    expect(more).toHaveLength(20);
    expect(reader.asked.slice(-4)).toEqual([
      [81, 85],
      [86, 90],
      [91, 95],
      [96, 100],
    ]);
  });

  it('fails the window when a batch fails, and asks for no further batch after it', async () => {
    const reader = recordingReader(() => ({ transactions: 1, logsEach: 0 }), 12);
    const fetcher = createWindowFetcher(reader, createBatchSizer(5), 1);
    await expect(fetcher.take(1, 40)).rejects.toThrow('block 12 unavailable');
    expect(reader.asked).toEqual([
      [1, 5],
      [6, 10],
      [11, 15],
    ]);
  });
});
