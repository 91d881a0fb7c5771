import type { Logger } from 'pino';
import type { Network } from '../chains/registry.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { type ChainReader, createChainReader } from './chain-reader.ts';
import { type BlockFacts, decodeBlock } from './decode-block.ts';
import { findCommonAncestor } from './find-ancestor.ts';
import { type HeadWakeup, watchHeads } from './head-wakeup.ts';
import type { IndexerMetrics } from './indexer-metrics.ts';
import { createProgressTracker } from './progress.ts';
import type { IndexStore, StoredBlock } from './store.ts';

export interface IndexerOptions {
  network: Network;
  store: IndexStore;
  /** Hands committed events on: a poke to the relay that reads them back from the table in seq order. */
  publish: (events: readonly ChainEvent[]) => void;
  logger: Logger;
  metrics: IndexerMetrics;
  /** Blocks per batched upstream request (and per database transaction at most `batchBlocks * concurrency`). */
  batchBlocks?: number;
  /** Batched requests in flight during a backfill. */
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

/** A block to wait for: its number, and its hash when the caller knows which block of that height it means. */
export interface BlockTarget {
  number: number;
  hash?: string;
}

interface Waiter extends BlockTarget {
  resolve(): void;
  reject(error: Error): void;
}

const defaultBatchBlocks = 25;
/**
 * Facts (logs and transfers) per database transaction at most: a busy block range is written in
 * several transactions, so no single one holds locks or a connection for long.
 */
const maxFactsPerWrite = 8000;
const defaultConcurrency = 4;
const maxBackoffMs = 30_000;

export function networkKey(network: Network): string {
  return `${network.config.chain}/${network.config.network}`;
}

/** Follows one EVM network's head into the index: backfill, then block by block, undoing reorgs. */
export function createIndexer(options: IndexerOptions): Indexer {
  const { network, store, publish, metrics } = options;
  const key = networkKey(network);
  const logger = options.logger.child({ component: 'indexer', network: key });
  const reader = options.reader ?? createChainReader({ send: (body) => network.upstream.send(body) });
  const batchBlocks = options.batchBlocks ?? defaultBatchBlocks;
  const concurrency = options.concurrency ?? defaultConcurrency;
  const pollMs = options.pollMs ?? Math.min(1000, Math.max(50, (network.config.blockTimeS * 1000) / 4));
  const startBlock = network.config.indexer.startBlock;
  const finalityDepth = network.config.finalityDepth;
  const progress = createProgressTracker({
    network: key,
    store,
    logger,
    logIntervalMs: options.progressIntervalMs ?? 10_000,
    finalityDepth,
  });

  let tip: StoredBlock | undefined;
  let head = -1;
  let running: Promise<void> | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;
  let heads: HeadWakeup | undefined;
  const waiters = new Set<Waiter>();
  let lastCheck: Promise<void> = Promise.resolve();
  let queuedCheck: Promise<void> | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  /**
   * Resolves the waiters whose block the store holds. It reads through the store, as every reader does,
   * rather than trusting `tip`: a block counts once its transaction is committed and visible, and only
   * with the right hash.
   */
  async function checkWaiters() {
    const due = [...waiters];
    if (due.length === 0) return;
    const stored = await store.hashes(key, [...new Set(due.map((waiter) => waiter.number))]);
    const unhashed = [...new Set(due.filter((w) => w.hash === undefined && stored.has(w.number)).map((w) => w.number))];
    const canonical = unhashed.length > 0 ? await reader.blockHashes(unhashed) : new Map<number, string>();
    for (const waiter of due) {
      const held = stored.get(waiter.number);
      if (held !== undefined && held === (waiter.hash ?? canonical.get(waiter.number))) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  /**
   * Checks the waiters, one check at a time: a call while a check runs queues one more (shared by every
   * call until it starts), which sees every waiter added before it started.
   */
  function settleWaiters(): Promise<void> {
    if (!queuedCheck) {
      queuedCheck = lastCheck
        .then(() => {
          queuedCheck = undefined;
          return checkWaiters();
        })
        .catch((error) =>
          logger.warn({ err: error }, 'could not check the blocks waited for; checking again after the next round'),
        );
      lastCheck = queuedCheck;
    }
    return queuedCheck;
  }

  async function upstreamHead(): Promise<BlockTarget> {
    const number = await reader.head();
    const hash = (await reader.blockHashes([number])).get(number);
    return hash === undefined ? { number } : { number, hash };
  }

  /** The next window, fetched while the current one is written. */
  let prefetched: { from: number; to: number; facts: Promise<BlockFacts[] | undefined> } | undefined;

  function prefetch(from: number, to: number) {
    // A failed prefetch is forgotten: the round fetches the window itself and reports its own error.
    prefetched = { from, to, facts: fetchFacts(from, to).catch(() => undefined) };
  }

  async function takeFacts(from: number, to: number): Promise<BlockFacts[]> {
    const ready = prefetched;
    prefetched = undefined;
    if (ready && ready.from === from && ready.to <= to) {
      const facts = await ready.facts;
      if (facts) return facts;
    }
    return fetchFacts(from, to);
  }

  async function fetchFacts(from: number, to: number): Promise<BlockFacts[]> {
    const ranges: [number, number][] = [];
    for (let start = from; start <= to; start += batchBlocks) ranges.push([start, Math.min(to, start + batchBlocks - 1)]);
    const bundles = await Promise.all(ranges.map(([start, end]) => reader.bundles(start, end)));
    return bundles.flat().map(decodeBlock);
  }

  /** Keeps the longest prefix that links to the tip and to itself: a block fetched after a reorg does not. */
  function linkedPrefix(facts: BlockFacts[]): BlockFacts[] {
    let parent = tip?.hash;
    for (let index = 0; index < facts.length; index++) {
      const block = facts[index]!;
      if (parent !== undefined && block.parentHash !== parent) return facts.slice(0, index);
      parent = block.hash;
    }
    return facts;
  }

  async function rollBack(from: StoredBlock) {
    const ancestor = await findCommonAncestor({
      from: from.number,
      floor: startBlock,
      canonical: (numbers) => reader.blockHashes(numbers),
      stored: (numbers) => store.hashes(key, numbers),
    });
    const depth = from.number - ancestor;
    // Blocks fetched ahead may be from the dropped branch, and they link to the ancestor too.
    prefetched = undefined;
    const removed = await store.rollbackTo(key, ancestor);
    tip = ancestor >= startBlock ? await store.tip(key) : undefined;
    metrics.reorgs.inc({ network: key });
    metrics.blocksRolledBack.inc({ network: key }, depth);
    const log = depth > finalityDepth ? logger.error.bind(logger) : logger.warn.bind(logger);
    log({ depth, ancestor, removedEvents: removed.length, finalityDepth }, 'reorg: blocks above the common ancestor undone');
    publish(removed);
  }

  async function round(): Promise<boolean> {
    head = await reader.head();
    metrics.headBlock.set({ network: key }, head);
    progress.sawHead(head);
    const next = tip ? tip.number + 1 : startBlock;
    if (next > head) {
      // Caught up. Our newest block may still have been replaced (at the same height, or the node's chain
      // got shorter): only its hash tells.
      if (tip) {
        const canonical = await reader.blockHashes([tip.number]);
        if (canonical.get(tip.number) !== tip.hash) await rollBack(tip);
      }
      return false;
    }
    const window = batchBlocks * concurrency;
    const to = Math.min(head, next + window - 1);
    const facts = await takeFacts(next, to);
    const linked = linkedPrefix(facts);
    if (linked.length === 0) {
      prefetched = undefined;
      if (tip) await rollBack(tip);
      return true;
    }
    // Backfilling: fetch the next window while this one is written. Blocks fetched before a reorg are
    // caught by the parent-hash check like any other.
    if (linked.length === facts.length && to < head) prefetch(to + 1, Math.min(head, to + window));
    for (const chunk of writeChunks(linked)) {
      const events = await store.writeBlocks(key, chunk);
      const last = chunk[chunk.length - 1]!;
      tip = { number: last.number, hash: last.hash };
      publish(events);
      progress.indexed(chunk);
      metrics.indexedBlock.set({ network: key }, tip.number);
      metrics.blocksIndexed.inc({ network: key }, chunk.length);
      countTransfers(chunk);
    }
    return tip!.number < head;
  }

  /** Consecutive blocks grouped so each group holds at most `maxFactsPerWrite` facts (a bigger block stands alone). */
  function writeChunks(blocks: BlockFacts[]): BlockFacts[][] {
    const chunks: BlockFacts[][] = [];
    let current: BlockFacts[] = [];
    let size = 0;
    for (const block of blocks) {
      const facts = block.logs.length + block.nftTransfers.length + block.transactions.length;
      if (current.length > 0 && size + facts > maxFactsPerWrite) {
        chunks.push(current);
        current = [];
        size = 0;
      }
      current.push(block);
      size += facts;
    }
    if (current.length > 0) chunks.push(current);
    return chunks;
  }

  function countTransfers(blocks: BlockFacts[]) {
    let token = 0;
    let nft = 0;
    let native = 0;
    let internal = 0;
    for (const block of blocks) {
      token += block.tokenTransfers.length;
      nft += block.nftTransfers.length;
      native += block.nativeTransfers.length;
      internal += block.internalTransfers.length;
    }
    if (token) metrics.transfersIndexed.inc({ network: key, kind: 'token' }, token);
    if (nft) metrics.transfersIndexed.inc({ network: key, kind: 'nft' }, nft);
    if (native) metrics.transfersIndexed.inc({ network: key, kind: 'native' }, native);
    if (internal) metrics.transfersIndexed.inc({ network: key, kind: 'internal' }, internal);
  }

  async function run() {
    let backoffMs = 0;
    let started = false;
    while (!stopped) {
      // Every database step is inside the retry: one outside it (reading the tip, reporting progress)
      // ended the indexer for good when the database did not answer, until its lease changed hands.
      try {
        if (!started) {
          tip = await store.tip(key);
          logger.info({ from: tip ? tip.number + 1 : startBlock, tracing: reader.tracing() }, 'indexer started');
          started = true;
        }
        const more = await round();
        backoffMs = 0;
        if (waiters.size > 0) void settleWaiters();
        await progress.maybeReport(tip);
        if (!more) await sleep(pollMs);
      } catch (error) {
        if (stopped) break;
        metrics.errors.inc({ network: key });
        backoffMs = Math.min(maxBackoffMs, Math.max(500, backoffMs * 2));
        logger.warn({ err: error, retryInMs: backoffMs }, 'index round failed; retrying');
        await sleep(backoffMs);
      }
    }
  }

  return {
    network: key,
    start() {
      if (running) return;
      stopped = false;
      if (network.config.upstreams.some((upstream) => upstream.wsUrl)) {
        heads = watchHeads({ urls: () => network.pool.socketUrls(), onHead: () => wake?.(), logger });
      }
      running = run().catch((error) => logger.error({ err: error }, 'indexer stopped on an error'));
    },
    async stop() {
      stopped = true;
      heads?.close();
      heads = undefined;
      wake?.();
      await running;
      running = undefined;
      // A block committed before the stop still counts; the others will not come from this run.
      await settleWaiters();
      for (const waiter of waiters)
        waiter.reject(new Error(`${key}: the indexer stopped before block ${formatTarget(waiter)} was indexed`));
      waiters.clear();
    },
    async waitFor(block, timeoutMs = 30_000) {
      const target: BlockTarget =
        block === undefined ? await upstreamHead() : typeof block === 'number' ? { number: block } : block;
      const hash = target.hash?.toLowerCase();
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          const at = tip ? `${tip.number} (${tip.hash})` : 'none';
          reject(
            new Error(`${key}: block ${formatTarget(waiter)} not indexed within ${timeoutMs} ms (this indexer is at ${at})`),
          );
        }, timeoutMs);
        const waiter: Waiter = {
          number: target.number,
          ...(hash === undefined ? {} : { hash }),
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        };
        waiters.add(waiter);
        void settleWaiters();
        wake?.();
      });
    },
    tip: () => tip,
    isRunning: () => running !== undefined,
  };
}

function formatTarget(target: BlockTarget): string {
  return target.hash === undefined ? String(target.number) : `${target.number} (${target.hash})`;
}
