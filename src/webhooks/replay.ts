import { type Kysely, sql } from 'kysely';
import { invalidRequest } from '../core/errors.ts';
import type { Tables } from '../db/tables.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { type ChainEventRow, toChainEvent } from '../events/store.ts';

export type ReplayRequest = { from_block: number; to_block?: number } | { since: string };

/** Blocks one replay covers at most: a bigger range is several calls. */
export const maxReplayBlocks = 100_000;

/** The block range a replay request names: `{from_block, to_block}` (to defaults to the indexed head) or `{since}` (a time). */
export async function resolveReplayRange(
  db: Kysely<Tables>,
  network: string,
  request: ReplayRequest,
): Promise<{ fromBlock: number; toBlock: number }> {
  const head = await db
    .selectFrom('index_blocks')
    .select((eb) => eb.fn.max('number').as('number'))
    .where('network', '=', network)
    .executeTakeFirst();
  const headNumber = head?.number === null || head?.number === undefined ? -1 : Number(head.number);
  let fromBlock: number;
  let toBlock = headNumber;
  if ('since' in request) {
    const since = Date.parse(request.since);
    if (Number.isNaN(since)) throw invalidRequest('since', 'must be an ISO 8601 time, e.g. 2026-11-24T12:00:00Z');
    const first = await db
      .selectFrom('index_blocks')
      .select('number')
      .where('network', '=', network)
      .where('timestamp', '>=', new Date(since))
      .orderBy('number')
      .limit(1)
      .executeTakeFirst();
    fromBlock = first ? Number(first.number) : headNumber + 1;
  } else {
    fromBlock = request.from_block;
    if (request.to_block !== undefined) toBlock = request.to_block;
    else if (fromBlock > headNumber) throw invalidRequest('from_block', `is beyond the newest indexed block (${headNumber})`);
    if (toBlock < fromBlock) throw invalidRequest('to_block', `is below from_block (${fromBlock})`);
  }
  if (toBlock - fromBlock + 1 > maxReplayBlocks) {
    throw invalidRequest('to_block', `the range covers ${toBlock - fromBlock + 1} blocks; at most ${maxReplayBlocks} per replay`);
  }
  return { fromBlock, toBlock };
}

/** Matching events one replay queues at most (`webhooks.replay_max_events`): past it, it stops at a block boundary and says where to go on. */
export const defaultReplayMaxEvents = 10_000;
/** Chain events read (and matched) per page (`webhooks.replay_page_events`): what a replay holds in memory at once. */
export const defaultReplayPageEvents = 1000;

/**
 * The range's events that are still canonical (not taken back by a reorg), in chain order (block,
 * then seq), a page of at most `pageSize` at a time: a keyset over (block_number, seq), so no page
 * costs more than the one before it and nothing is held between pages.
 */
export async function* readReplayEvents(
  db: Kysely<Tables>,
  network: string,
  range: { fromBlock: number; toBlock: number },
  pageSize = defaultReplayPageEvents,
): AsyncGenerator<ChainEvent[]> {
  let after = { block: range.fromBlock, seq: '0' };
  for (;;) {
    const { rows } = await sql<ChainEventRow>`
      select e.* from chain_events e
      where e.network = ${network}
        and e.block_number between ${range.fromBlock} and ${range.toBlock}
        and (e.block_number, e.seq) > (${after.block}, ${after.seq})
        and not e.removed
        and not exists (select 1 from chain_events r where r.removes_seq = e.seq)
      order by e.block_number, e.seq
      limit ${pageSize}`.execute(db);
    if (rows.length === 0) return;
    const events = rows.map(toChainEvent);
    yield events;
    const last = events[events.length - 1]!;
    after = { block: last.blockNumber, seq: last.seq };
    if (rows.length < pageSize) return;
  }
}

export interface ReplayOutcome {
  /** Events queued. */
  readonly queued: number;
  /** The first block whose events were not queued because the cap was reached; undefined when the whole range was. */
  readonly nextFromBlock?: number;
}

/**
 * Streams a replay: each page's matching events are written in a transaction of their own, so memory
 * and transactions stay bounded whatever the range. At most `maxEvents` are queued, whole blocks
 * only: the replay stops before the block that would pass the cap (the first block with matches is
 * always queued whole, however many, so every call gets on).
 */
export async function streamReplay<Match extends { readonly event: ChainEvent }>(options: {
  readonly pages: AsyncIterable<ChainEvent[]>;
  readonly match: (event: ChainEvent) => Match | undefined;
  readonly write: (matches: readonly Match[]) => Promise<void>;
  readonly maxEvents: number;
}): Promise<ReplayOutcome> {
  let queued = 0;
  let firstBlock: number | undefined;
  // A page may end inside a block: the block's rest, on the next page, is queued whatever the cap.
  let lastBlock: number | undefined;
  for await (const page of options.pages) {
    const matches = page.flatMap((event) => options.match(event) ?? []);
    if (matches.length === 0) continue;
    firstBlock ??= matches[0]!.event.blockNumber;
    const room = options.maxEvents - queued;
    const firstOut = matches.length > room ? matches[Math.max(room, 0)]!.event.blockNumber : undefined;
    const begun = (block: number) => block === firstBlock || block === lastBlock;
    // Matches come in block order, so this keeps a prefix of them.
    const taken =
      firstOut === undefined ? matches : matches.filter(({ event }) => event.blockNumber < firstOut || begun(event.blockNumber));
    if (taken.length > 0) {
      await options.write(taken);
      lastBlock = taken[taken.length - 1]!.event.blockNumber;
    }
    queued += taken.length;
    if (taken.length < matches.length) return { queued, nextFromBlock: matches[taken.length]!.event.blockNumber };
  }
  return { queued };
}
