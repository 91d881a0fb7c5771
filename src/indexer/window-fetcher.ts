import type { BatchSizer } from './batch-sizer.ts';
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

/**
 * Batches of `sizer.blocks()` blocks, at most `concurrency` in flight: each batch is sized when it is
 * asked for, so the first answers of a window already size the rest of it.
 */
export function createWindowFetcher(reader: Pick<ChainReader, 'bundles'>, sizer: BatchSizer, concurrency: number): WindowFetcher {
  let prefetched: { from: number; to: number; facts: Promise<BlockFacts[] | undefined> } | undefined;

  async function fetchFacts(from: number, to: number): Promise<BlockFacts[]> {
    const batches = new Map<number, BlockFacts[]>();
    let next = from;
    let failed = false;
    const worker = async () => {
      while (next <= to && !failed) {
        const start = next;
        const end = Math.min(to, start + sizer.blocks() - 1);
        next = end + 1;
        try {
          // Each batch is decoded as it arrives: one window decoded at once held the event loop (and the head's round) for long.
          const facts = (await reader.bundles(start, end)).map(decodeBlock);
          sizer.learn(facts);
          batches.set(start, facts);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    const workers = Math.max(1, Math.min(concurrency, Math.ceil((to - from + 1) / sizer.blocks())));
    await Promise.all(Array.from({ length: workers }, worker));
    return [...batches.entries()].sort(([a], [b]) => a - b).flatMap(([, facts]) => facts);
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
