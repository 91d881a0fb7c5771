/**
 * The served tip of each network as every API process of a deployment knows it: a process publishes its
 * own tip and learns the highest any process served, so a client answered by one process and then by
 * another never sees the chain go back.
 */
export interface SharedTipStore {
  /**
   * Raises `network`'s shared tip to `block` when higher and answers the shared tip after that (never
   * below `block`); a store that cannot be reached answers `block` (this process's view only).
   */
  raise(network: string, block: number): Promise<number>;
  close(): Promise<void>;
}

/** One process's store (tests, and what a lone process would share with itself). */
export function createMemorySharedTipStore(): SharedTipStore {
  const tips = new Map<string, number>();
  return {
    async raise(network, block) {
      const shared = tips.get(network) ?? -1;
      if (block <= shared) return shared;
      tips.set(network, block);
      return block;
    },
    async close() {
      tips.clear();
    },
  };
}
