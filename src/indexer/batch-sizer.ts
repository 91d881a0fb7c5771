import type { BlockFacts } from './decode-block.ts';

/**
 * Transactions and logs per batched block request, once the chain's blocks are known: a batch of 25
 * busy mainnet or L2 blocks with their receipts is over 20 MB of JSON, and parsing one holds the event
 * loop (and with it the head's round) for a quarter of a second.
 */
export const defaultBatchWeight = 6_000;

/** How many blocks the next batched request asks for, learnt from the blocks fetched so far. */
export interface BatchSizer {
  blocks(): number;
  /** Takes the size of blocks just fetched into account. */
  learn(facts: readonly BlockFacts[]): void;
}

/**
 * Shared by a network's head rounds and its backfill, so a backfill starts with batches sized by the
 * head blocks already seen. The size follows the latest batch: chains change load, not shape.
 * Pure: no I/O.
 */
export function createBatchSizer(maxBlocks: number, batchWeight = defaultBatchWeight): BatchSizer {
  let blocks = maxBlocks;
  return {
    blocks: () => blocks,
    learn(facts) {
      if (facts.length === 0) return;
      const items = facts.reduce((sum, block) => sum + block.transactions.length + block.logs.length, 0);
      const perBlock = items / facts.length;
      blocks = Math.max(1, Math.min(maxBlocks, Math.floor(batchWeight / Math.max(1, perBlock))));
    },
  };
}
