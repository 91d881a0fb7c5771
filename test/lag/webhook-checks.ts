import type { ReceivedRequest } from '../webhooks/support.ts';

/** What the deliveries of one run show about reorgs that never happened. */
export interface DeliveryFindings {
  /** Deliveries received (every webhook of the run). */
  readonly deliveries: number;
  /** Deliveries with `removed: true`. */
  readonly removed: number;
  /** Event ids received more than once (the receiver answers 200 to all: nothing needs a retry). */
  readonly duplicateIds: number;
  /** The same fact (a block, a transfer) delivered under more than one event id. */
  readonly refired: number;
  /** new_block deliveries: the block numbers of the range [first, last] never delivered. */
  readonly missingBlocks: readonly number[];
  readonly firstBlock: number | undefined;
  readonly lastBlock: number | undefined;
}

/**
 * Reads the deliveries of `webhookIds` (a new_block webhook's blocks must come once each, in a range
 * without holes; an address_activity webhook's transfers once each).
 */
export function examineDeliveries(
  requests: readonly ReceivedRequest[],
  webhooks: { readonly newBlock: string; readonly others: readonly string[] },
): DeliveryFindings {
  const ours = new Set([webhooks.newBlock, ...webhooks.others]);
  const mine = requests.filter((request) => ours.has(request.json?.webhook_id));
  const idCounts = countBy(mine, (request) => String(request.json.id));
  const factIds = new Map<string, Set<string>>();
  for (const request of mine) {
    if (request.json.removed) continue;
    const key = `${request.json.webhook_id}:${factKey(request.json.data)}`;
    const ids = factIds.get(key) ?? new Set<string>();
    ids.add(String(request.json.id));
    factIds.set(key, ids);
  }
  const blocks = mine
    .filter((request) => request.json.webhook_id === webhooks.newBlock && !request.json.removed)
    .map((request) => Number(request.json.data.block_number));
  const firstBlock = blocks.length ? Math.min(...blocks) : undefined;
  const lastBlock = blocks.length ? Math.max(...blocks) : undefined;
  const delivered = new Set(blocks);
  const missingBlocks: number[] = [];
  if (firstBlock !== undefined && lastBlock !== undefined)
    for (let number = firstBlock; number <= lastBlock; number++) if (!delivered.has(number)) missingBlocks.push(number);
  return {
    deliveries: mine.length,
    removed: mine.filter((request) => request.json.removed === true).length,
    duplicateIds: [...idCounts.values()].filter((count) => count > 1).length,
    refired: [...factIds.values()].filter((ids) => ids.size > 1).length,
    missingBlocks,
    firstBlock,
    lastBlock,
  };
}

/** What makes two deliveries the same fact: the block, and the transaction and position within it when there is one. */
function factKey(data: Record<string, unknown>): string {
  return [data.block_number, data.block_hash, data.tx_hash, data.log_index, data.trace_path, data.category, data.value]
    .map((part) => (part === undefined ? '' : String(part)))
    .join('/');
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}
