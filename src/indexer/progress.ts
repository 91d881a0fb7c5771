import type { Logger } from 'pino';
import type { BlockFacts } from './decode-block.ts';
import type { IndexStore, StoredBlock } from './store.ts';

/** Counts what was indexed since the last report; logs a line and saves a row every interval. */
export function createProgressTracker(options: {
  network: string;
  store: IndexStore;
  logger: Logger;
  intervalMs: number;
  finalityDepth: number;
}) {
  let head = -1;
  let blocks = 0;
  let transfers = 0;
  let since = Date.now();
  let lastSaved: number | undefined;

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
    /** Reports when the interval has passed, or at once when the tip moved and nothing was ever saved. */
    async maybeReport(tip: StoredBlock | undefined) {
      const now = Date.now();
      const due = now - since >= options.intervalMs || (lastSaved === undefined && tip !== undefined);
      if (!due || head < 0) return;
      const seconds = Math.max(0.001, (now - since) / 1000);
      const indexedBlock = tip?.number ?? -1;
      const row = {
        network: options.network,
        indexedBlock,
        headBlock: head,
        finalBlock: Math.max(-1, Math.min(indexedBlock, head - options.finalityDepth)),
        blocksPerSecond: Math.round((blocks / seconds) * 10) / 10,
        transfersPerSecond: Math.round((transfers / seconds) * 10) / 10,
      };
      try {
        await options.store.saveProgress(row);
        lastSaved = now;
      } catch (error) {
        options.logger.warn({ err: error }, 'could not save index progress');
      }
      if (blocks > 0 || indexedBlock < head)
        options.logger.info(
          {
            indexed: indexedBlock,
            head,
            behind: Math.max(0, head - indexedBlock),
            blocksPerSecond: row.blocksPerSecond,
            transfersPerSecond: row.transfersPerSecond,
          },
          'index progress',
        );
      blocks = 0;
      transfers = 0;
      since = now;
    },
  };
}
