/**
 * Writes started in order with at most `depth` under way, each handed to `done` in the order started.
 * The writes commit in order by themselves (each one waits for the previous one's lock before its shared
 * rows: src/indexer/backfill-store.ts); the pipeline only overlaps one write's work with the next one's.
 */
export interface WritePipeline<T> {
  /** Starts `write` once fewer than `depth` are under way; throws the first failure of any write. */
  push(write: () => Promise<T>): Promise<void>;
  /** Waits for every write started; throws the first failure. */
  drain(): Promise<void>;
}

export function createWritePipeline<T>(depth: number, done: (result: T) => void): WritePipeline<T> {
  const running: Promise<T>[] = [];

  const settleOldest = async () => {
    const oldest = running.shift()!;
    try {
      done(await oldest);
    } catch (error) {
      // A later write fails too once an earlier one did (it no longer links): wait for them all, so
      // no write outlives the pipeline, then report the first failure.
      await Promise.allSettled(running.splice(0));
      throw error;
    }
  };

  return {
    async push(write) {
      while (running.length >= depth) await settleOldest();
      const started = write();
      // Its failure is reported by settleOldest; until then it must not count as unhandled.
      started.catch(() => undefined);
      running.push(started);
    },
    async drain() {
      while (running.length > 0) await settleOldest();
    },
  };
}
