/**
 * The ops (by hash) and senders in a bundle this process is sending or waiting for: no second bundle
 * of this process takes them (nor another op of the same sender, whose validation assumed their state).
 */
export function createBundleClaims() {
  const ops = new Set<string>();
  const senders = new Map<string, number>();
  return {
    /** Marks ops as taken by a bundle of this process until the returned release is called. */
    claim(rows: readonly { hash: string; sender: string }[]): () => void {
      for (const row of rows) {
        ops.add(row.hash);
        senders.set(row.sender, (senders.get(row.sender) ?? 0) + 1);
      }
      return () => {
        for (const row of rows) {
          ops.delete(row.hash);
          const left = (senders.get(row.sender) ?? 1) - 1;
          if (left <= 0) senders.delete(row.sender);
          else senders.set(row.sender, left);
        }
      };
    },
    /** Whether a bundle of this process holds the op. */
    holdsOp(hash: string): boolean {
      return ops.has(hash);
    },
    /** Whether a bundle of this process holds the op or another op of its sender. */
    holdsOpOrSender(row: { hash: string; sender: string }): boolean {
      return ops.has(row.hash) || senders.has(row.sender);
    },
  };
}

export type BundleClaims = ReturnType<typeof createBundleClaims>;
