import type { Logger } from 'pino';
import type { BlockFacts } from './decode-block.ts';
import type { IndexStore, StoredBlock } from './store.ts';

/** The status row is refreshed this often, so `blockyard index status` is never more than a second old. */
const saveIntervalMs = 1000;

/** Measures indexing rates; saves the status row every second and logs a progress line every `logIntervalMs`. */
export function createProgressTracker(options: {
  network: string;
  store: IndexStore;
  logger: Logger;
  logIntervalMs: number;
  /** The newest final block of the network while its head is `head` (src/chains/final-block.ts decides). */
  finalBlock(head: number): number | undefined;
}) {
  let head = -1;
  let blocks = 0;
  let transfers = 0;
  let since = Date.now();
  let rates = { blocksPerSecond: 0, transfersPerSecond: 0 };
  let lastSaved = 0;
  let lastLogged = Date.now();

  return {
    sawHead(value: number) {
      head = value;
    },
    indexed(facts: readonly BlockFacts[]) {
      blocks += facts.length;
      for (const block of facts) {
        transfers +=
          block.tokenTransfers.length + block.nftTransfers.length + block.nativeTransfers.length + block.internalTransfers.length;
      }
    },
    async maybeReport(tip: StoredBlock | undefined) {
      const now = Date.now();
      if (head < 0 || now - lastSaved < saveIntervalMs) return;
      const seconds = (now - since) / 1000;
      // Rates over windows of at least 5 s: a one-second window of a 1 s devnet swings between 0 and 1.
      if (seconds >= 5) {
        rates = {
          blocksPerSecond: Math.round((blocks / seconds) * 10) / 10,
          transfersPerSecond: Math.round((transfers / seconds) * 10) / 10,
        };
        blocks = 0;
        transfers = 0;
        since = now;
      }
      const indexedBlock = tip?.number ?? -1;
      const row = {
        network: options.network,
        indexedBlock,
        headBlock: head,
        finalBlock: Math.max(-1, Math.min(indexedBlock, options.finalBlock(head) ?? -1)),
        ...rates,
      };
      lastSaved = now;
      try {
        await options.store.saveProgress(row);
      } catch (error) {
        options.logger.warn({ err: error }, 'could not save index progress');
      }
      if (now - lastLogged >= options.logIntervalMs) {
        lastLogged = now;
        options.logger.info(
          { indexed: indexedBlock, head, behind: Math.max(0, head - indexedBlock), ...rates },
          'index progress',
        );
      }
    },
  };
}

export type ProgressTracker = ReturnType<typeof createProgressTracker>;
