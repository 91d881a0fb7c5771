import { isHash, isQuantity } from './json-rpc.ts';

/** anvil's own depths (stack-notes, "Real-network emulation"): safe = head - 32, finalized = head - 64. */
const safeDepth = 32;
const finalizedDepth = 64;

/** Where a block parameter points for a node whose head is `head`. */
export type BlockRef = { kind: 'number'; number: number } | { kind: 'hash'; hash: string } | { kind: 'unreadable' };

/**
 * A block parameter as nodes accept it: absent (= latest), a tag, a quantity, a hash (eth_getBlockReceipts),
 * or an EIP-1898 object `{ blockNumber }` / `{ blockHash }`.
 */
export function resolveBlockParam(param: unknown, head: number): BlockRef {
  if (param === undefined || param === null) return { kind: 'number', number: head };
  if (isHash(param)) return { kind: 'hash', hash: param };
  if (typeof param === 'object') {
    const object = param as { blockNumber?: unknown; blockHash?: unknown };
    if (isHash(object.blockHash)) return { kind: 'hash', hash: object.blockHash };
    if (object.blockNumber !== undefined) return resolveBlockParam(object.blockNumber, head);
    return { kind: 'unreadable' };
  }
  const number = resolveBlockTag(param, head);
  return number === undefined ? { kind: 'unreadable' } : { kind: 'number', number };
}

/** A tag or quantity as a block number for a node whose head is `head`; undefined for anything else. */
export function resolveBlockTag(tag: unknown, head: number): number | undefined {
  switch (tag) {
    case undefined:
    case 'latest':
    case 'pending':
      return head;
    case 'safe':
      return Math.max(0, head - safeDepth);
    case 'finalized':
      return Math.max(0, head - finalizedDepth);
    case 'earliest':
      return 0;
    default:
      return isQuantity(tag) ? Number(tag) : undefined;
  }
}
