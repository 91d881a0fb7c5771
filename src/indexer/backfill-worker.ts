import type { Logger } from 'pino';
import type { BackfillJob, BackfillStore } from './backfill-store.ts';
import { type BackfillMetrics, transfersIn } from './indexer-metrics.ts';
import { createWakeableSleep } from './wakeable-sleep.ts';
import type { WindowFetcher } from './window-fetcher.ts';
import { linkedPrefix, writeChunks } from './write-chunks.ts';
import { createWritePipeline } from './write-pipeline.ts';

/** Facts per database transaction at most, as the head's writes (index-round.ts). */
const maxFactsPerWrite = 8000;
/**
 * Write transactions under way at once: while one waits on Postgres, the next is encoded and sent.
 * They commit in block order (src/indexer/backfill-store.ts), so a restart still resumes after the last.
 */
const writesUnderWay = 2;
/** How often an idle worker looks for a new job: the command waits at most this before the first block. */
const idleLookMs = 1000;
const maxBackoffMs = 30_000;
/** Rates over this long a stretch at least, so one slow window does not swing them. */
const rateWindowMs = 3000;

export interface BackfillWorker {
  start(): void;
  /** Stops after the window being written (its transaction commits or rolls back whole). */
  stop(): Promise<void>;
}

/**
 * Works through a network's backfill jobs, oldest first, beside the head (the lease holder runs both):
 * windows of blocks fetched ahead while the previous one is written, each committed with the job's
 * progress, so a restart resumes after the last committed window. Backfilled blocks write the same rows
 * as the head's, but no chain events: webhooks and subscriptions are about new blocks, not history.
 */
export function createBackfillWorker(options: {
  network: string;
  store: BackfillStore;
  metrics: BackfillMetrics;
  logger: Logger;
  /** A new fetcher for each job (its prefetched window belongs to the job). */
  fetcher: () => WindowFetcher;
  /** Blocks fetched at once, and ahead while the previous window is written. */
  windowBlocks(): number;
}): BackfillWorker {
  const { network, store, metrics, logger } = options;
  const pause = createWakeableSleep();
  let stopped = false;
  let running: Promise<void> | undefined;

  async function fill(job: BackfillJob): Promise<void> {
    logger.info(
      { backfill: job.id, from: job.from, to: job.to, next: job.next },
      job.next > job.from ? 'backfill resumed' : 'backfill started',
    );
    metrics.fromBlock.set({ network }, job.from);
    metrics.toBlock.set({ network }, job.to);
    metrics.nextBlock.set({ network }, job.next);
    const fetcher = options.fetcher();
    const rates = createRateMeter();
    let current = job;
    const pipeline = createWritePipeline<BackfillJob>(writesUnderWay, (written) => {
      current = written;
      metrics.nextBlock.set({ network }, written.next);
    });
    let next = job.next;
    let previous: { first: number; locked: Promise<void> } | undefined;
    try {
      while (!stopped && next <= job.to) {
        const to = Math.min(job.to, next + options.windowBlocks() - 1);
        const facts = await fetcher.take(next, to);
        if (linkedPrefix(facts, undefined).length !== facts.length) {
          fetcher.forget();
          throw new Error(`blocks ${next} to ${to} do not link to each other (the chain moved under the read)`);
        }
        if (to < job.to) fetcher.prefetch(to + 1, Math.min(job.to, to + options.windowBlocks()));
        for (const chunk of writeChunks(facts, maxFactsPerWrite)) {
          const transfers = transfersIn(chunk);
          rates.add(chunk.length, transfers);
          const progress = { transfers, ...rates.current() };
          // A write gets the job as it was (the write before it may not have committed): it checks its own
          // first block against the job's. It starts once the write before it holds its lock, so it
          // cannot take that write's turn.
          const after = previous;
          if (after) await after.locked;
          let onLocked = () => {};
          const locked = new Promise<void>((resolve) => (onLocked = resolve));
          await pipeline.push(async () => {
            try {
              const written = await store.writeWindow(job, chunk, progress, { after: after?.first, onLocked });
              metrics.blocks.inc({ network }, chunk.length);
              metrics.transfers.inc({ network }, transfers);
              return written;
            } finally {
              onLocked();
            }
          });
          previous = { first: chunk[0]!.number, locked };
          next = chunk[chunk.length - 1]!.number + 1;
          if (stopped) break;
        }
      }
    } finally {
      await pipeline.drain();
    }
    if (current.status === 'done')
      logger.info({ backfill: current.id, from: current.from, to: current.to, transfers: current.transfers }, 'backfill done');
  }

  async function loop(): Promise<void> {
    let backoffMs = 0;
    while (!stopped) {
      try {
        const job = await store.nextOpen(network);
        if (!job) {
          await pause.sleep(idleLookMs);
          continue;
        }
        await fill(job);
        backoffMs = 0;
      } catch (error) {
        if (stopped) break;
        backoffMs = Math.min(maxBackoffMs, Math.max(500, backoffMs * 2));
        logger.warn({ err: error, retryInMs: backoffMs }, 'backfill window failed; retrying');
        await pause.sleep(backoffMs);
      }
    }
  }

  return {
    start() {
      if (running) return;
      stopped = false;
      running = loop().catch((error) => logger.error({ err: error }, 'backfill worker stopped on an error'));
    },
    async stop() {
      stopped = true;
      pause.wake();
      await running;
      running = undefined;
    },
  };
}

/** Blocks and transfers per second over the last few seconds of this process's work on a job. */
function createRateMeter() {
  let since = Date.now();
  let blocks = 0;
  let transfers = 0;
  let rates = { blocksPerSecond: 0, transfersPerSecond: 0 };
  return {
    add(moreBlocks: number, moreTransfers: number) {
      blocks += moreBlocks;
      transfers += moreTransfers;
    },
    current() {
      const elapsedMs = Date.now() - since;
      if (elapsedMs >= rateWindowMs || rates.blocksPerSecond === 0) {
        const seconds = Math.max(elapsedMs, 1) / 1000;
        rates = {
          blocksPerSecond: Math.round((blocks / seconds) * 10) / 10,
          transfersPerSecond: Math.round((transfers / seconds) * 10) / 10,
        };
        if (elapsedMs >= rateWindowMs) {
          since = Date.now();
          blocks = 0;
          transfers = 0;
        }
      }
      return rates;
    },
  };
}
