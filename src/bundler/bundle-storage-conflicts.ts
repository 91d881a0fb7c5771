import type { UserOperationRow } from '../db/tables/bundler.ts';

type Row = Pick<UserOperationRow, 'sender' | 'storage_owners'>;

/** Whether either op's validation touched storage in the other's sender (ERC-7562 STO-041). */
export function storageConflict(a: Row, b: Row): boolean {
  const senderA = a.sender.toLowerCase();
  const senderB = b.sender.toLowerCase();
  if (senderA === senderB) return false;
  return (a.storage_owners ?? []).includes(senderB) || (b.storage_owners ?? []).includes(senderA);
}

/**
 * ERC-7562 STO-041 in a bundle: an op whose validation touched the storage of another op's sender (or
 * whose sender another op's validation touched) does not share its bundle, nor one in flight
 * (`inFlight`): the first could change what the second's validation read. It waits in the mempool for
 * a later bundle, as the reference bundler keeps it, and so do its sender's later ops (their nonces
 * follow it). The batch is in bundle order, each sender's ops in nonce order.
 */
export function withoutStorageConflicts<T extends Row>(batch: readonly T[], inFlight: (row: T) => boolean = () => false): T[] {
  const kept: T[] = [];
  const waiting = new Set<string>();
  for (const row of batch) {
    const sender = row.sender.toLowerCase();
    if (waiting.has(sender) || inFlight(row) || kept.some((other) => storageConflict(row, other))) {
      waiting.add(sender);
      continue;
    }
    kept.push(row);
  }
  return kept;
}
