import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.ts';

/** The newest block of a network's index. */
export interface IndexHead {
  readonly number: number;
  readonly hash: string;
  readonly timestamp: Date;
}

/** The newest block the index holds for `network` ('{chain}/{network}'), or undefined before the first. */
export async function readIndexHead(db: Kysely<Tables>, network: string): Promise<IndexHead | undefined> {
  const row = await db
    .selectFrom('index_blocks')
    .select(['number', 'hash', 'timestamp'])
    .where('network', '=', network)
    .orderBy('number', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? { number: Number(row.number), hash: row.hash, timestamp: new Date(row.timestamp) } : undefined;
}
