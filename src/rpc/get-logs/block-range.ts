import { parseBlockNumber } from '../cache/cache-policy.ts';

export interface BlockRange {
  readonly from: number;
  readonly to: number;
}

/**
 * The numeric block range of an eth_getLogs filter, tags resolved against `head`. Undefined when it
 * cannot be split: a `blockHash` filter, `pending`, an unknown head for a tag, or an invalid range.
 */
export function resolveLogsRange(filter: unknown, head: number | undefined): BlockRange | undefined {
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return undefined;
  const { fromBlock, toBlock, blockHash } = filter as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };
  if (blockHash !== undefined) return undefined;
  const from = resolveBlock(fromBlock, head);
  const to = resolveBlock(toBlock, head);
  if (from === undefined || to === undefined || from > to) return undefined;
  return { from, to };
}

function resolveBlock(block: unknown, head: number | undefined): number | undefined {
  if (block === undefined || block === 'latest' || block === 'safe' || block === 'finalized') return head;
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

/** Halves a range of two blocks or more. */
export function bisectRange(range: BlockRange): [BlockRange, BlockRange] {
  const middle = range.from + Math.floor((range.to - range.from) / 2);
  return [
    { from: range.from, to: middle },
    { from: middle + 1, to: range.to },
  ];
}
