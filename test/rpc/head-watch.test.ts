import { describe, expect, it } from 'vitest';
import { compareHeads, type Head } from '../../src/rpc/cache/head-watch.ts';

const head = (number: number, hash: string, parentHash = '0xparent'): Head => ({ number, hash, parentHash });

describe('compareHeads: a reorg is a different hash at a height, seen from a node at or above it', () => {
  it('a lower head is a node behind (a lagging upstream, one node of a load balancer), never a reorg', () => {
    expect(compareHeads(head(10, '0xa', '0x9'), head(9, '0x9'))).toBe('behind');
    expect(compareHeads(head(10, '0xa', '0x9'), head(8, '0xc'))).toBe('behind');
    expect(compareHeads(head(10, '0xa', '0x9'), head(3, '0xd'))).toBe('behind');
  });

  it('the block just below with another hash than our head’s parent is a reorg (that node is at that height)', () => {
    expect(compareHeads(head(10, '0xa', '0x9'), head(9, '0xb'))).toBe('reorg');
  });

  it('another hash at the same height is a reorg; the same one is no change', () => {
    expect(compareHeads(head(10, '0xa'), head(10, '0xb'))).toBe('reorg');
    expect(compareHeads(head(10, '0xa'), head(10, '0xa'))).toBe('same');
  });

  it('the next block on top is an advance; one whose parent is not the head seen is a reorg', () => {
    expect(compareHeads(head(10, '0xa'), head(11, '0xb', '0xa'))).toBe('advanced');
    expect(compareHeads(head(10, '0xa'), head(11, '0xb', '0xz'))).toBe('reorg');
    expect(compareHeads(head(10, '0xa'), head(13, '0xd', '0xc'))).toBe('advanced');
    expect(compareHeads(undefined, head(1, '0xa'))).toBe('advanced');
  });
});
