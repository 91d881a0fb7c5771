import type { BlockFacts } from './decode-block.ts';

/**
 * Keeps the longest prefix that links to `tipHash` (the newest stored block, if any) and to itself: a
 * block fetched after a reorg does not.
 */
export function linkedPrefix(facts: BlockFacts[], tipHash: string | undefined): BlockFacts[] {
  let parent = tipHash;
  for (let index = 0; index < facts.length; index++) {
    const block = facts[index]!;
    if (parent !== undefined && block.parentHash !== parent) return facts.slice(0, index);
    parent = block.hash;
  }
  return facts;
}

/**
 * Consecutive blocks grouped so each group holds at most `maxFacts` facts (a bigger block stands
 * alone): each group is one database transaction.
 */
export function writeChunks(blocks: BlockFacts[], maxFacts: number): BlockFacts[][] {
  const chunks: BlockFacts[][] = [];
  let current: BlockFacts[] = [];
  let size = 0;
  for (const block of blocks) {
    const facts = block.logs.length + block.nftTransfers.length + block.transactions.length;
    if (current.length > 0 && size + facts > maxFacts) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(block);
    size += facts;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
