import type { ChainReader } from './chain-reader.ts';
import { type BlockFacts, decodeBlock } from './decode-block.ts';

/** Fetches a window of blocks as facts, in batched requests; during a backfill the next window comes while one is written. */
export interface WindowFetcher {
  /** The facts of blocks `from`..`to`: the prefetched window when it starts at `from` and fits, else fetched now. */
  take(from: number, to: number): Promise<BlockFacts[]>;
  /** Starts fetching `from`..`to` for the next `take`. */
  prefetch(from: number, to: number): void;
  /** Drops the prefetched window (after a reorg its blocks may be from the dropped branch). */
  forget(): void;
}

export function createWindowFetcher(reader: Pick<ChainReader, 'bundles'>, batchBlocks: number): WindowFetcher {
  let prefetched: { from: number; to: number; facts: Promise<BlockFacts[] | undefined> } | undefined;

  async function fetchFacts(from: number, to: number): Promise<BlockFacts[]> {
    const ranges: [number, number][] = [];
    for (let start = from; start <= to; start += batchBlocks) ranges.push([start, Math.min(to, start + batchBlocks - 1)]);
    // Each batch is decoded as it arrives: one window decoded at once held the event loop (and the head's round) for long.
    const facts = await Promise.all(
      ranges.map(([start, end]) => reader.bundles(start, end).then((bundles) => bundles.map(decodeBlock))),
    );
    return facts.flat();
  }

  return {
    async take(from, to) {
      const ready = prefetched;
      prefetched = undefined;
      if (ready && ready.from === from && ready.to <= to) {
        const facts = await ready.facts;
        if (facts) return facts;
      }
      return fetchFacts(from, to);
    },
    prefetch(from, to) {
      // A failed prefetch is forgotten: the round fetches the window itself and reports its own error.
      prefetched = { from, to, facts: fetchFacts(from, to).catch(() => undefined) };
    },
    forget() {
      prefetched = undefined;
    },
  };
}
