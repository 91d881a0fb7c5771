import type { Logger } from 'pino';
import { finalBlockOf } from '../chains/final-block.ts';
import { networkKey } from '../chains/network-key.ts';
import type { Network } from '../chains/registry.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import type { BackfillStore } from './backfill-store.ts';
import { createBackfillWorker } from './backfill-worker.ts';
import { BlockUnavailableError } from './batch-read.ts';
import { createBatchSizer } from './batch-sizer.ts';
import { type BlockTarget, createBlockWaiters } from './block-waiters.ts';
import { type ChainReader, createChainReader } from './chain-reader.ts';
import { type HeadWakeup, watchHeads } from './head-wakeup.ts';
import { resolveIndexOrigin } from './index-origin.ts';
import { type IndexCursor, indexRound, type RoundDeps } from './index-round.ts';
import type { IndexerMetrics } from './indexer-metrics.ts';
import { createProgressTracker } from './progress.ts';
import type { IndexStore, StoredBlock } from './store.ts';
import { createWakeableSleep } from './wakeable-sleep.ts';
import { createWindowFetcher } from './window-fetcher.ts';

export interface IndexerOptions {
  network: Network;
  store: IndexStore;
  /** Where the index starts (remembered at its first start) and the backfill jobs below it. */
  backfills: BackfillStore;
  /** Hands committed events on: a poke to the relay that reads them back from the table in seq order. */
  publish: (events: readonly ChainEvent[]) => void;
  logger: Logger;
  metrics: IndexerMetrics;
  /** Blocks per batched upstream request at most (fewer for busy blocks: batch-sizer.ts). */
  batchBlocks?: number;
  /** Batched requests in flight at most; a window (fetched at once, and ahead while one is written) is this many batches. */
  concurrency?: number;
  /** Head poll interval; default from the chain's block time. */
  pollMs?: number;
  /** How often a progress line is logged (the status row is saved every second). */
  progressIntervalMs?: number;
  reader?: ChainReader;
}

export interface Indexer {
  readonly network: string;
  start(): void;
  /** Stops after the round in progress (a transaction is never cut in half). */
  stop(): Promise<void>;
  /**
   * Resolves once the store holds `block`, committed and readable by any connection: the block with that
   * hash when one is given, else the one the upstream has at that number when checked (so a block of a
   * dropped branch does not count); default: the upstream's head, number and hash, at the time of the
   * call. Checked at the call and after each round of this indexer. Rejects after `timeoutMs`, or when
   * the indexer stops first (a lost lease stops it too). A transaction sent without waiting for its
   * receipt may not be in the node's head yet.
   */
  waitFor(block?: number | BlockTarget, timeoutMs?: number): Promise<void>;
  tip(): StoredBlock | undefined;
  /** Whether this process is indexing the network now (a standby waits for the lease). */
  isRunning(): boolean;
}

const defaultBatchBlocks = 25;
const defaultConcurrency = 4;
const maxBackoffMs = 30_000;

/**
 * Follows one EVM network's head into the index: backfill, then block by block, undoing reorgs. Each
 * round is `indexRound`; this factory runs rounds (polling, woken by a new head or a waiter, backing
 * off after a failure) and answers the callers of `waitFor`.
 */
export function createIndexer(options: IndexerOptions): Indexer {
  const { network, store, metrics } = options;
  const key = networkKey(network);
  const logger = options.logger.child({ component: 'indexer', network: key });
  const reader = options.reader ?? createChainReader({ send: (body, need) => network.pool.send(body, need) });
  const batchBlocks = options.batchBlocks ?? defaultBatchBlocks;
  const concurrency = options.concurrency ?? defaultConcurrency;
  const sizer = createBatchSizer(batchBlocks);
  const pollMs = options.pollMs ?? Math.min(1000, Math.max(50, (network.config.blockTimeS * 1000) / 4));
  const finalBlock = (head: number) => finalBlockOf(network.config, head, network.pool.finality());
  const progress = createProgressTracker({
    network: key,
    store,
    logger,
    logIntervalMs: options.progressIntervalMs ?? 10_000,
    finalBlock,
  });
  const cursor: IndexCursor = { tip: undefined };
  const round: RoundDeps = {
    network: key,
    reader,
    store,
    fetcher: createWindowFetcher(reader, sizer, concurrency),
    progress,
    metrics,
    publish: options.publish,
    logger,
    // Resolved at the first round: the remembered start, or the head of the first start.
    startBlock: 0,
    finalBlock,
    // Writes are slower than fetches: a window of a few batches keeps the next one ready without a
    // burst of fetching and decoding that starves the head's round of CPU.
    windowBlocks: () => sizer.blocks() * concurrency,
  };
  const backfill = createBackfillWorker({
    network: key,
    store: options.backfills,
    metrics: metrics.backfill,
    logger,
    fetcher: () => createWindowFetcher(reader, sizer, concurrency),
    windowBlocks: round.windowBlocks,
  });
  const waiters = createBlockWaiters({ network: key, store, reader, tip: () => cursor.tip, logger });
  const pause = createWakeableSleep();
  let running: Promise<void> | undefined;
  let stopped = false;
  let heads: HeadWakeup | undefined;

  async function upstreamHead(): Promise<BlockTarget> {
    const number = await reader.head();
    const hash = (await reader.blockHashes([number])).get(number);
    return hash === undefined ? { number } : { number, hash };
  }

  async function run() {
    let backoffMs = 0;
    let started = false;
    // After a failed round the tip is read back: a write whose answer was lost (the connection dropped
    // after COMMIT reached the server, or the stall guard gave up on it) may have committed, and a
    // cursor left behind it would insert the same block again and again (duplicate key) for good.
    let tipUnsure = false;
    const waiting = createUnavailableWatch(logger);
    while (!stopped) {
      // Every database step is inside the retry: one outside it (reading the tip, reporting progress)
      // ended the indexer for good when the database did not answer, until its lease changed hands.
      try {
        if (!started) {
          round.startBlock = await resolveIndexOrigin({
            network: key,
            configured: network.config.indexer.startBlock,
            store: options.backfills,
            head: () => reader.head(),
            logger,
          });
          cursor.tip = await store.tip(key);
          logger.info(
            { from: cursor.tip ? cursor.tip.number + 1 : round.startBlock, tracing: reader.tracing() },
            'indexer started',
          );
          started = true;
          backfill.start();
        } else if (tipUnsure) {
          cursor.tip = await store.tip(key);
        }
        tipUnsure = false;
        const more = await indexRound(round, cursor);
        backoffMs = 0;
        waiting.ended();
        if (waiters.size > 0) void waiters.settle();
        await progress.maybeReport(cursor.tip);
        if (!more) await pause.sleep(pollMs);
      } catch (error) {
        if (stopped) break;
        if (error instanceof BlockUnavailableError) {
          // The upstreams are a block or two behind the tip served: the block comes within a poll or two.
          metrics.unavailable.inc({ network: key });
          waiting.met(error);
          await pause.sleep(pollMs);
          continue;
        }
        metrics.errors.inc({ network: key });
        tipUnsure = true;
        backoffMs = Math.min(maxBackoffMs, Math.max(500, backoffMs * 2));
        logger.warn({ err: error, retryInMs: backoffMs }, 'index round failed; retrying');
        await pause.sleep(backoffMs);
      }
    }
  }

  return {
    network: key,
    start() {
      if (running) return;
      stopped = false;
      if (network.config.upstreams.some((upstream) => upstream.wsUrl)) {
        heads = watchHeads({
          urls: () => network.pool.socketUrls(),
          onHead: pause.wake,
          logger,
          identity: network.pool.socketIdentity(),
        });
      }
      running = run().catch((error) => logger.error({ err: error }, 'indexer stopped on an error'));
    },
    async stop() {
      stopped = true;
      heads?.close();
      heads = undefined;
      pause.wake();
      await Promise.all([running, backfill.stop()]);
      running = undefined;
      await waiters.stop();
    },
    async waitFor(block, timeoutMs = 30_000) {
      const target: BlockTarget =
        block === undefined ? await upstreamHead() : typeof block === 'number' ? { number: block } : block;
      const indexed = waiters.wait(target, timeoutMs);
      pause.wake();
      await indexed;
    },
    tip: () => cursor.tip,
    isRunning: () => running !== undefined,
  };
}

/** Past this long without the blocks asked for, it is worth a warn line (a lag of a block or two is not). */
const unavailableWarnMs = 30_000;

/** Rounds that met a block no upstream has yet: debug lines, and one warn line when it lasts. */
function createUnavailableWatch(logger: Logger) {
  let since: number | undefined;
  let warned = false;
  return {
    met(error: BlockUnavailableError) {
      since ??= Date.now();
      const waitedMs = Date.now() - since;
      if (!warned && waitedMs > unavailableWarnMs) {
        warned = true;
        logger.warn({ waitedMs, reason: error.message }, 'no upstream has the next blocks yet; still asking');
      } else logger.debug({ waitedMs, reason: error.message }, 'no upstream has the next blocks yet; asking again');
    },
    ended() {
      if (warned) logger.info({ waitedMs: Date.now() - (since ?? Date.now()) }, 'the upstreams have the blocks again');
      since = undefined;
      warned = false;
    },
  };
}
