import { describe, expect, it } from 'vitest';
import type { BlockFacts } from '../../src/indexer/decode-block.ts';
import { linkedPrefix, writeChunks } from '../../src/indexer/write-chunks.ts';

/** A block with `logs` facts whose parent is `parent`. */
function block(number: number, parent: string, logs = 0): BlockFacts {
  return {
    number,
    hash: `h${number}`,
    parentHash: parent,
    logs: Array.from({ length: logs }),
    nftTransfers: [],
    transactions: [],
  } as unknown as BlockFacts;
}

describe('linkedPrefix', () => {
  const chain = [block(11, 'h10'), block(12, 'h11'), block(13, 'h12')];

  it('keeps every block that links to the tip and to the one before it', () => {
    expect(linkedPrefix(chain, 'h10')).toEqual(chain);
    expect(linkedPrefix(chain, undefined)).toEqual(chain);
  });

  it('stops at the first block that does not link (fetched after a reorg)', () => {
    const forked = [chain[0]!, chain[1]!, block(13, 'other')];
    expect(linkedPrefix(forked, 'h10')).toEqual(chain.slice(0, 2));
    expect(linkedPrefix(chain, 'not-the-tip')).toEqual([]);
  });
});

describe('writeChunks', () => {
  it('groups consecutive blocks up to the fact limit; a bigger block stands alone', () => {
    const blocks = [block(1, 'h0', 3), block(2, 'h1', 3), block(3, 'h2', 9), block(4, 'h3', 1), block(5, 'h4', 0)];
    expect(writeChunks(blocks, 6).map((chunk) => chunk.map((b) => b.number))).toEqual([[1, 2], [3], [4, 5]]);
    expect(writeChunks([], 6)).toEqual([]);
  });
});
