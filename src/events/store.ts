import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';
import type { ChainEvent } from './chain-event.ts';

/** Events after `afterSeq` (exclusive), oldest first: how a consumer resumes where it stopped. */
export async function readChainEvents(
  db: Kysely<Tables>,
  options: { afterSeq: string; network?: string; limit?: number },
): Promise<ChainEvent[]> {
  let query = db
    .selectFrom('chain_events')
    .selectAll()
    .where('seq', '>', options.afterSeq as never)
    .orderBy('seq')
    .limit(options.limit ?? 1000);
  if (options.network) query = query.where('network', '=', options.network);
  const rows = await query.execute();
  return rows.map(toChainEvent);
}

/** A chain_events row as both drivers return it. */
export interface ChainEventRow {
  seq: string;
  network: string;
  type: string;
  block_number: string;
  block_hash: string;
  removed: boolean;
  removes_seq: string | null;
  data: Record<string, unknown>;
  created_at: Date | string;
}

export function toChainEvent(row: ChainEventRow): ChainEvent {
  return {
    seq: String(row.seq),
    network: row.network,
    type: row.type as ChainEvent['type'],
    blockNumber: Number(row.block_number),
    blockHash: row.block_hash,
    removed: row.removed,
    removesSeq: row.removes_seq === null ? null : String(row.removes_seq),
    data: row.data,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** Orders decimal seq strings numerically. */
export function compareSeq(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
