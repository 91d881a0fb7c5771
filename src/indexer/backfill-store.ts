import { type Kysely, sql } from 'kysely';
import { setTransactionStatementTimeout } from '../db/statement-timeout.ts';
import type { BackfillStatus } from '../db/tables/chain-index.ts';
import type { Tables } from '../db/tables.ts';
import type { BlockFacts } from './decode-block.ts';
import { updateHoldings } from './holdings.ts';
import { ownershipDeltas } from './ownership-deltas.ts';
import { applyOwnership, insertBlocks, insertTransfers, nftMovements, type Trx } from './store.ts';

export interface BackfillJob {
  id: string;
  network: string;
  from: number;
  to: number;
  /** The first block not filled yet (`to + 1` once done). */
  next: number;
  status: BackfillStatus;
  transfers: number;
  blocksPerSecond: number;
  transfersPerSecond: number;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

/** What one committed window adds to its job. */
export interface WindowProgress {
  transfers: number;
  blocksPerSecond: number;
  transfersPerSecond: number;
}

/**
 * How a write overlaps the one before it. Each write holds a lock named after its first block for its
 * whole transaction: a second writer of the same blocks (a lease changing hands) waits for it. Rows
 * of the blocks themselves are written at once; the shared rows (token holdings, NFT ownership) and
 * the job's progress only after the write that starts at `after` has ended, so writes commit in block
 * order and a restart resumes after the last one.
 */
export interface WriteOrder {
  /** The first block of the write before this one, still under way. */
  readonly after?: number;
  /** Called once this write holds its lock: the next write may start then (never before). */
  readonly onLocked?: () => void;
}

/** A window that does not link to the blocks stored beside it: fetched again after a pause. */
export class BackfillLinkError extends Error {
  override readonly name = 'BackfillLinkError';
}

/** Where each network's index starts, and the jobs that fill the blocks below it. */
export interface BackfillStore {
  origin(network: string): Promise<number | undefined>;
  /** Remembers `block` as where the index starts unless one is remembered; answers the remembered one. */
  rememberOrigin(network: string, block: number): Promise<number>;
  origins(): Promise<Map<string, number>>;
  /** The lowest block from which the index is whole: the origin, lowered by each finished backfill that reaches it. */
  coveredFrom(network: string, origin: number): Promise<number>;
  /** A new job, or the unfinished one of the same range (running the command twice follows one job). */
  create(network: string, from: number, to: number): Promise<BackfillJob>;
  get(id: string): Promise<BackfillJob | undefined>;
  list(network?: string): Promise<BackfillJob[]>;
  /** The oldest unfinished job of the network. */
  nextOpen(network: string): Promise<BackfillJob | undefined>;
  /**
   * Stores consecutive blocks of the job (those not stored yet: running a range twice adds nothing)
   * and moves the job past them, in one transaction; the blocks must start at the job's `next` as it
   * is once the write before them committed. `order` lets writes overlap (src/indexer/backfill-worker.ts).
   */
  writeWindow(
    job: BackfillJob,
    blocks: readonly BlockFacts[],
    progress: WindowProgress,
    order?: WriteOrder,
  ): Promise<BackfillJob>;
}

/** `writeTimeoutMs`: the statement_timeout of a window's write transaction (limits.indexer_statement_timeout_ms; 0: none). */
export function createBackfillStore(db: Kysely<Tables>, writeTimeoutMs = 0): BackfillStore {
  return {
    origin: (network) => readOrigin(db, network),
    async rememberOrigin(network, block) {
      await db
        .insertInto('index_origins')
        .values({ network, first_block: block })
        .onConflict((c) => c.doNothing())
        .execute();
      return (await readOrigin(db, network)) ?? block;
    },
    async origins() {
      const rows = await db.selectFrom('index_origins').select(['network', 'first_block']).execute();
      return new Map(rows.map((row) => [row.network, Number(row.first_block)]));
    },
    coveredFrom: (network, origin) => readCoveredFrom(db, network, origin),
    create: (network, from, to) => createJob(db, network, from, to),
    async get(id) {
      if (!/^\d{1,18}$/.test(id)) return undefined;
      const row = await db
        .selectFrom('index_backfills')
        .selectAll()
        .where('id', '=', id as never)
        .executeTakeFirst();
      return row ? toJob(row) : undefined;
    },
    async list(network) {
      let query = db.selectFrom('index_backfills').selectAll();
      if (network !== undefined) query = query.where('network', '=', network);
      return (await query.orderBy('id', 'desc').limit(100).execute()).map(toJob);
    },
    async nextOpen(network) {
      const row = await db
        .selectFrom('index_backfills')
        .selectAll()
        .where('network', '=', network)
        .where('status', '<>', 'done')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      return row ? toJob(row) : undefined;
    },
    writeWindow: (job, blocks, progress, order = {}) => writeWindow(db, job, blocks, progress, order, writeTimeoutMs),
  };
}

async function readOrigin(db: Kysely<Tables>, network: string): Promise<number | undefined> {
  const row = await db.selectFrom('index_origins').select('first_block').where('network', '=', network).executeTakeFirst();
  return row ? Number(row.first_block) : undefined;
}

async function readCoveredFrom(db: Kysely<Tables>, network: string, origin: number): Promise<number> {
  const done = await db
    .selectFrom('index_backfills')
    .select(['from_block', 'to_block'])
    .where('network', '=', network)
    .where('status', '=', 'done')
    .execute();
  const ranges = done.map((row) => ({ from: Number(row.from_block), to: Number(row.to_block) }));
  let covered = origin;
  for (let lowered = true; lowered; ) {
    lowered = false;
    for (const range of ranges) {
      if (range.from < covered && range.to >= covered - 1) {
        covered = range.from;
        lowered = true;
      }
    }
  }
  return covered;
}

async function createJob(db: Kysely<Tables>, network: string, from: number, to: number): Promise<BackfillJob> {
  return db.transaction().execute(async (trx) => {
    // Two commands at once for the same range still make one job.
    await sql`select pg_advisory_xact_lock(hashtext(${`blockyard-backfill-jobs:${network}`}))`.execute(trx);
    const same = await trx
      .selectFrom('index_backfills')
      .selectAll()
      .where('network', '=', network)
      .where('from_block', '=', String(from))
      .where('to_block', '=', String(to))
      .where('status', '<>', 'done')
      .executeTakeFirst();
    if (same) return toJob(same);
    const row = await trx
      .insertInto('index_backfills')
      .values({ network, from_block: from, to_block: to, next_block: from })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toJob(row);
  });
}

async function writeWindow(
  db: Kysely<Tables>,
  job: BackfillJob,
  blocks: readonly BlockFacts[],
  progress: WindowProgress,
  order: WriteOrder,
  writeTimeoutMs: number,
): Promise<BackfillJob> {
  const first = blocks[0]!;
  const last = blocks[blocks.length - 1]!;
  return db.transaction().execute(async (trx) => {
    await setTransactionStatementTimeout(trx, writeTimeoutMs);
    await lockWrite(trx, job.network, first.number);
    order.onLocked?.();
    const fresh = await blocksNotStored(trx, job.network, blocks);
    if (fresh.length > 0) {
      await insertBlocks(trx, job.network, fresh);
      await insertTransfers(trx, job.network, fresh);
    }
    if (order.after !== undefined) await lockWrite(trx, job.network, order.after);
    if (fresh.length > 0) {
      await updateHoldings(trx, job.network, fresh);
      await applyOwnership(trx, job.network, ownershipDeltas(nftMovements(fresh)));
    }
    const done = last.number >= job.to;
    const row = await trx
      .updateTable('index_backfills')
      .set({
        next_block: last.number + 1,
        status: done ? 'done' : 'running',
        transfers: sql`transfers + ${progress.transfers}`,
        blocks_per_second: progress.blocksPerSecond,
        transfers_per_second: progress.transfersPerSecond,
        updated_at: sql`now()`,
        finished_at: done ? sql`now()` : null,
      })
      .where('id', '=', job.id as never)
      .where('next_block', '=', String(first.number))
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new BackfillLinkError(`backfill ${job.id} moved past block ${first.number} meanwhile; reading it again`);
    return toJob(row);
  });
}

/** Waits for, then holds until the transaction ends, the lock of the backfill write starting at `firstBlock`. */
async function lockWrite(trx: Trx, network: string, firstBlock: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`blockyard-backfill:${network}:${firstBlock}`}, 0))`.execute(trx);
}

/**
 * The blocks not stored yet. A stored block must be the very block fetched, and the blocks stored just
 * below and above must link to the window: else the chain changed under it and it is fetched again.
 */
async function blocksNotStored(trx: Trx, network: string, blocks: readonly BlockFacts[]): Promise<BlockFacts[]> {
  const first = blocks[0]!;
  const last = blocks[blocks.length - 1]!;
  const stored = await trx
    .selectFrom('index_blocks')
    .select(['number', 'hash', 'parent_hash'])
    .where('network', '=', network)
    .where('number', '>=', String(first.number - 1))
    .where('number', '<=', String(last.number + 1))
    .execute();
  const byNumber = new Map(stored.map((row) => [Number(row.number), row]));
  const below = byNumber.get(first.number - 1);
  const above = byNumber.get(last.number + 1);
  if (below && below.hash !== first.parentHash)
    throw new BackfillLinkError(`block ${first.number} does not link to the stored block ${first.number - 1}`);
  if (above && above.parent_hash !== last.hash)
    throw new BackfillLinkError(`the stored block ${last.number + 1} does not link to block ${last.number}`);
  const fresh: BlockFacts[] = [];
  for (const block of blocks) {
    const found = byNumber.get(block.number);
    if (!found) fresh.push(block);
    else if (found.hash !== block.hash) throw new BackfillLinkError(`block ${block.number} is stored with another hash`);
  }
  return fresh;
}

type JobRow = {
  id: string;
  network: string;
  from_block: string;
  to_block: string;
  next_block: string;
  status: BackfillStatus;
  transfers: string;
  blocks_per_second: number;
  transfers_per_second: number;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
};

function toJob(row: JobRow): BackfillJob {
  return {
    id: String(row.id),
    network: row.network,
    from: Number(row.from_block),
    to: Number(row.to_block),
    next: Number(row.next_block),
    status: row.status,
    transfers: Number(row.transfers),
    blocksPerSecond: row.blocks_per_second,
    transfersPerSecond: row.transfers_per_second,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
  };
}
