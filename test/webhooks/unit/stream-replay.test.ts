import { describe, expect, it } from 'vitest';
import type { ChainEvent } from '../../../src/events/chain-event.ts';
import { streamReplay } from '../../../src/webhooks/replay.ts';

/** Events of these blocks, in order, cut into pages of `pageSize`; every event matches. */
function pagesOf(blocks: number[], pageSize: number): ChainEvent[][] {
  const events = blocks.map((blockNumber, index) => ({ seq: String(index + 1), blockNumber }) as unknown as ChainEvent);
  const pages: ChainEvent[][] = [];
  for (let at = 0; at < events.length; at += pageSize) pages.push(events.slice(at, at + pageSize));
  return pages;
}

async function run(blocks: number[], pageSize: number, maxEvents: number) {
  const writes: number[][] = [];
  const outcome = await streamReplay({
    pages: (async function* () {
      yield* pagesOf(blocks, pageSize);
    })(),
    match: (event) => ({ event }),
    write: async (matches) => {
      writes.push(matches.map(({ event }) => event.blockNumber));
    },
    maxEvents,
  });
  return { outcome, writes };
}

describe('streamReplay', () => {
  it('writes each page on its own and queues everything under the cap', async () => {
    const { outcome, writes } = await run([1, 1, 2, 3, 3, 4], 2, 100);
    expect(outcome).toEqual({ queued: 6 });
    expect(writes).toEqual([
      [1, 1],
      [2, 3],
      [3, 4],
    ]);
  });

  it('stops before the block that would pass the cap', async () => {
    const { outcome, writes } = await run([1, 1, 2, 2, 3, 3], 10, 3);
    expect(outcome).toEqual({ queued: 2, nextFromBlock: 2 });
    expect(writes).toEqual([[1, 1]]);
  });

  it('finishes a block begun on a page boundary, then stops', async () => {
    // The first page fills the cap exactly and ends inside block 2.
    const { outcome, writes } = await run([1, 1, 2, 2, 2, 3], 3, 3);
    expect(outcome).toEqual({ queued: 5, nextFromBlock: 3 });
    expect(writes).toEqual([
      [1, 1, 2],
      [2, 2],
    ]);
  });

  it('queues a first block bigger than the cap whole, so every call gets on', async () => {
    const { outcome, writes } = await run([5, 5, 5, 5, 5, 6], 2, 3);
    expect(outcome).toEqual({ queued: 5, nextFromBlock: 6 });
    expect(writes.flat()).toEqual([5, 5, 5, 5, 5]);
  });
});
