import { parseBlockNumber } from '../cache/cache-policy.ts';

export interface BlockRange {
  readonly from: number;
  readonly to: number;
}

/** The blocks `finalized` and `safe` stand for on the network now (src/chains/final-block.ts decides). */
export interface TagBlocks {
  readonly finalized: number | undefined;
  readonly safe: number | undefined;
}

/**
 * The numeric block range of an eth_getLogs filter: `latest` (or no bound) resolved against `head`,
 * `finalized` and `safe` against `tags`. Undefined when it cannot be split: a `blockHash` filter,
 * `pending`, an unknown block for a tag, or an invalid range.
 */
export function resolveLogsRange(filter: unknown, head: number | undefined, tags: TagBlocks): BlockRange | undefined {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return undefined;
  const { fromBlock, toBlock, blockHash } = filter as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };
  if (blockHash !== undefined) return undefined;
  const from = resolveBlock(fromBlock, head, tags);
  const to = resolveBlock(toBlock, head, tags);
  if (from === undefined || to === undefined || from < 0 || from > to) return undefined;
  return { from, to };
}

/** Whether a filter's bounds name `finalized` or `safe`, which a node would resolve by its own view. */
export function namesFinalityTag(filter: { fromBlock?: unknown; toBlock?: unknown }): boolean {
  return [filter.fromBlock, filter.toBlock].some((block) => block === 'finalized' || block === 'safe');
}

function resolveBlock(block: unknown, head: number | undefined, tags: TagBlocks): number | undefined {
  if (block === undefined || block === 'latest') return head;
  if (block === 'finalized' || block === 'safe') return tags[block];
  if (block === 'earliest') return 0;
  return typeof block === 'string' ? parseBlockNumber(block) : undefined;
}

/** Consecutive ranges of at most `maxRange` blocks covering `range`, in order. */
export function splitRange(range: BlockRange, maxRange: number): BlockRange[] {
  const parts: BlockRange[] = [];
  for (let from = range.from; from <= range.to; from += maxRange) {
    parts.push({ from, to: Math.min(range.to, from + maxRange - 1) });
  }
  return parts;
}

/**
 * The last block of `range` worth splitting over: blocks past `head` do not exist yet, so no piece is
 * made of them alone (the node answers a range reaching past its head with the blocks it has, and
 * refuses one starting past it). A range starting past the head is one piece, asked as it is.
 */
export function splitEnd(range: BlockRange, head: number | undefined): number {
  return head === undefined ? range.to : Math.min(range.to, Math.max(head, range.from));
}

/**
 * Pieces of at most `maxRange` blocks over `range` up to `end` (splitEnd); the last piece keeps the
 * range's own end, so what lies past the head is asked once, with the newest blocks, as the node would
 * be asked for the whole range (the served head may be a block behind the node's).
 */
export function splitRangeTo(range: BlockRange, end: number, maxRange: number): BlockRange[] {
  const parts = splitRange({ from: range.from, to: end }, maxRange);
  const last = parts.length - 1;
  parts[last] = { from: parts[last]!.from, to: range.to };
  return parts;
}

/** Halves a range of two blocks or more. */
export function bisectRange(range: BlockRange): [BlockRange, BlockRange] {
  const middle = range.from + Math.floor((range.to - range.from) / 2);
  return [
    { from: range.from, to: middle },
    { from: middle + 1, to: range.to },
  ];
}
