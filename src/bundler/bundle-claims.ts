import type { UserOperationRow } from '../db/tables/bundler.ts';

/** An op a bundle takes; `storage_owners` unknown (an op bundled alone as it is admitted) counts as none. */
type ClaimedRow = Pick<UserOperationRow, 'hash' | 'sender'> & { storage_owners?: readonly string[] | null };

/**
 * The ops (by hash) and senders in a bundle this process is sending or waiting for: no second bundle
 * of this process takes them (nor another op of the same sender, whose validation assumed their state,
 * nor an op in storage conflict with them: bundle-storage-conflicts.ts).
 */
export function createBundleClaims() {
  const ops = new Set<string>();
  const senders = createCountedSet();
  const storageOwners = createCountedSet();
  return {
    /** Marks ops as taken by a bundle of this process until the returned release is called. */
    claim(rows: readonly ClaimedRow[]): () => void {
      for (const row of rows) {
        ops.add(row.hash);
        senders.add(row.sender.toLowerCase());
        for (const owner of row.storage_owners ?? []) storageOwners.add(owner);
      }
      return () => {
        for (const row of rows) {
          ops.delete(row.hash);
          senders.delete(row.sender.toLowerCase());
          for (const owner of row.storage_owners ?? []) storageOwners.delete(owner);
        }
      };
    },
    /** Whether a bundle of this process holds the op. */
    holdsOp(hash: string): boolean {
      return ops.has(hash);
    },
    /** Whether a bundle of this process holds the op or another op of its sender. */
    holdsOpOrSender(row: { hash: string; sender: string }): boolean {
      return ops.has(row.hash) || senders.has(row.sender.toLowerCase());
    },
    /** Whether the op touched the storage of a sender in a bundle of this process, or its sender is a contract such a bundle's ops touched (STO-041). */
    conflictsWithClaimed(row: Pick<UserOperationRow, 'sender' | 'storage_owners'>): boolean {
      return storageOwners.has(row.sender.toLowerCase()) || (row.storage_owners ?? []).some((owner) => senders.has(owner));
    },
  };
}

/** A set that holds a value as many times as it was added. */
function createCountedSet() {
  const counts = new Map<string, number>();
  return {
    add(value: string) {
      counts.set(value, (counts.get(value) ?? 0) + 1);
    },
    delete(value: string) {
      const left = (counts.get(value) ?? 1) - 1;
      if (left <= 0) counts.delete(value);
      else counts.set(value, left);
    },
    has: (value: string) => counts.has(value),
  };
}

export type BundleClaims = ReturnType<typeof createBundleClaims>;
