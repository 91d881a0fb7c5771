import { type Kysely, sql } from 'kysely';
import { invalidRequest } from '../core/errors.ts';
import type { Tables } from '../db/tables.ts';
import type { ChainEvent } from '../events/chain-event.ts';
import { type ChainEventRow, toChainEvent } from '../events/store.ts';

export type ReplayRequest = { from_block: number; to_block?: number } | { since: string };

/** Blocks one replay covers at most: a bigger range is several calls. */
export const maxReplayBlocks = 100_000;
const pageSize = 5000;

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

/** The range's events that are still canonical (not taken back by a reorg), in seq order, a page at a time. */
export async function* readReplayEvents(
  db: Kysely<Tables>,
  network: string,
  range: { fromBlock: number; toBlock: number },
): AsyncGenerator<ChainEvent[]> {
  let afterSeq = '0';
  for (;;) {
    const { rows } = await sql<ChainEventRow>`
      select e.* from chain_events e
      where e.network = ${network}
        and e.block_number between ${range.fromBlock} and ${range.toBlock}
        and not e.removed
        and e.seq > ${afterSeq}
        and not exists (select 1 from chain_events r where r.removes_seq = e.seq)
      order by e.seq
      limit ${pageSize}`.execute(db);
    if (rows.length === 0) return;
    const events = rows.map(toChainEvent);
    yield events;
    afterSeq = events[events.length - 1]!.seq;
    if (rows.length < pageSize) return;
  }
}
