import type { Logger } from 'pino';
import type { ChainEvent } from '../events/chain-event.ts';
import { inRootSpan, setSpanAttributes, tracingOn } from '../tracing/tracing.ts';
import type { ChainReader } from './chain-reader.ts';
import type { BlockFacts } from './decode-block.ts';
import { findCommonAncestor } from './find-ancestor.ts';
import { countIndexedTransfers, type IndexerMetrics } from './indexer-metrics.ts';
import type { ProgressTracker } from './progress.ts';
import type { IndexStore, StoredBlock } from './store.ts';
import type { WindowFetcher } from './window-fetcher.ts';
import { linkedPrefix, writeChunks } from './write-chunks.ts';

/**
 * Facts (logs and transfers) per database transaction at most: a busy block range is written in
 * several transactions, so no single one holds locks or a connection for long.
 */
const maxFactsPerWrite = 8000;

/** Where the index of one network stands: its newest stored block. */
export interface IndexCursor {
  tip: StoredBlock | undefined;
}

export interface RoundDeps {
  /** `chain/network`, as the store and the metrics name it. */
  network: string;
  reader: ChainReader;
  store: IndexStore;
  fetcher: WindowFetcher;
  progress: ProgressTracker;
  metrics: IndexerMetrics;
  publish: (events: readonly ChainEvent[]) => void;
  logger: Logger;
  startBlock: number;
  /** The newest final block of the network while its head is `head` (src/chains/final-block.ts decides). */
  finalBlock(head: number): number | undefined;
  /** Blocks one round fetches at most (a window: a few batches, sized by the blocks seen so far). */
  windowBlocks(): number;
}

/**
 * One round of the indexer: reads the head, fetches the next window, keeps the blocks that link to
 * the tip and writes them; a window that does not link undoes the reorg instead. Answers whether
 * more blocks are waiting (then the next round starts at once). A block no upstream has yet (a node a
 * block or two behind) is never a reorg: the round ends and the next one asks again.
 */
export async function indexRound(deps: RoundDeps, cursor: IndexCursor): Promise<boolean> {
  const { network, reader, metrics } = deps;
  const head = await reader.head();
  metrics.headBlock.set({ network }, head);
  deps.progress.sawHead(head);
  const tip = cursor.tip;
  const next = tip ? tip.number + 1 : deps.startBlock;
  if (next > head) {
    if (tip) await checkNewest(deps, cursor, tip, head);
    return false;
  }
  if (!tracingOn()) return indexWindow(deps, cursor, next, head);
  // Rounds that find no new block start no trace: one every poll would drown those that index.
  const attributes = { 'blockyard.network': network, 'blockyard.index.from': next, 'blockyard.index.head': head };
  return inRootSpan('indexer round', attributes, () => indexWindow(deps, cursor, next, head));
}

/** The round's part from `next` on: fetch a window, write what links to the tip, or undo a reorg. */
async function indexWindow(deps: RoundDeps, cursor: IndexCursor, next: number, head: number): Promise<boolean> {
  const { fetcher } = deps;
  const tip = cursor.tip;
  const to = Math.min(head, next + deps.windowBlocks() - 1);
  const facts = await fetcher.take(next, to);
  const linked = linkedPrefix(facts, tip?.hash);
  if (linked.length === 0) {
    fetcher.forget();
    // The node that has the next block holds another parent for it: a reorg, unless the walk back finds
    // nothing to undo (nodes disagree for now), then the next round looks again after a pause.
    return tip ? rollBack(deps, cursor, tip) : true;
  }
  // Backfilling: fetch the next window while this one is written. Blocks fetched before a reorg are
  // caught by the parent-hash check like any other.
  if (linked.length === facts.length && to < head) fetcher.prefetch(to + 1, Math.min(head, to + deps.windowBlocks()));
  await writeLinked(deps, cursor, linked);
  if (tracingOn()) setSpanAttributes({ 'blockyard.index.to': cursor.tip!.number });
  return cursor.tip!.number < head;
}

/** Writes linked blocks in chunks, each committed (and its events published) before the next. */
async function writeLinked(deps: RoundDeps, cursor: IndexCursor, blocks: BlockFacts[]): Promise<void> {
  const { network, metrics } = deps;
  for (const chunk of writeChunks(blocks, maxFactsPerWrite)) {
    const events = await deps.store.writeBlocks(network, chunk);
    const last = chunk[chunk.length - 1]!;
    cursor.tip = { number: last.number, hash: last.hash };
    deps.publish(events);
    deps.progress.indexed(chunk);
    metrics.indexedBlock.set({ network }, cursor.tip.number);
    metrics.blocksIndexed.inc({ network }, chunk.length);
    countIndexedTransfers(metrics, network, chunk);
  }
}

/**
 * Caught up: our newest block may still have been replaced at the same height. Only a different hash,
 * from a node that has the block, tells; no hash (no node has it now) tells nothing. When the served
 * head fell below our tip (the chain started over and the pool's tip with it), the block at the head
 * is compared instead: a different one there means every block we hold above it is gone too.
 */
async function checkNewest(deps: RoundDeps, cursor: IndexCursor, tip: StoredBlock, head: number): Promise<void> {
  const height = Math.min(tip.number, head);
  if (height < deps.startBlock) return;
  const canonical = (await deps.reader.blockHashes([height])).get(height);
  const stored = height === tip.number ? tip.hash : (await deps.store.hashes(deps.network, [height])).get(height);
  if (canonical !== undefined && stored !== undefined && canonical !== stored) await rollBack(deps, cursor, tip, height);
}

/**
 * Undoes the blocks above the newest one the store and the upstreams agree on, walking back from
 * `walkFrom` (default the tip), and publishes the removals. Every block undone was compared (an
 * upstream that has it answered another hash) or sits above one that was. Answers whether blocks
 * were undone.
 */
async function rollBack(deps: RoundDeps, cursor: IndexCursor, from: StoredBlock, walkFrom = from.number): Promise<boolean> {
  const { network, store, metrics } = deps;
  const search = await findCommonAncestor({
    from: walkFrom,
    floor: deps.startBlock,
    canonical: (numbers) => deps.reader.blockHashes(numbers),
    stored: (numbers) => store.hashes(network, numbers),
  });
  if ('unknown' in search) {
    deps.logger.debug(
      { block: search.unknown, tip: from.number },
      'no upstream has this block now: no reorg declared, asking again',
    );
    return false;
  }
  const { ancestor } = search;
  const depth = from.number - ancestor;
  if (depth === 0) return false;
  // Blocks fetched ahead may be from the dropped branch, and they link to the ancestor too.
  deps.fetcher.forget();
  const removed = await store.rollbackTo(network, ancestor);
  cursor.tip = ancestor >= deps.startBlock ? await store.tip(network) : undefined;
  metrics.reorgs.inc({ network });
  metrics.blocksRolledBack.inc({ network }, depth);
  // Undoing a block the network had called final is an error to look into, not a normal reorg.
  const finalBlock = deps.finalBlock(from.number);
  const undidFinal = finalBlock !== undefined && ancestor < finalBlock;
  const log = undidFinal ? deps.logger.error.bind(deps.logger) : deps.logger.warn.bind(deps.logger);
  log({ depth, ancestor, removedEvents: removed.length, finalBlock }, 'reorg: blocks above the common ancestor undone');
  deps.publish(removed);
  return true;
}
