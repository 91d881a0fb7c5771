import type { Kysely } from 'kysely';
import type { Hex } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';

/** The ops are in bundle transaction `txHash` (sent, or a replacement of it). */
export async function markSubmitted(db: Kysely<Tables>, rows: readonly UserOperationRow[], txHash: Hex): Promise<void> {
  await db
    .updateTable('user_operations')
    .set({ status: 'submitted', tx_hash: txHash, updated_at: new Date() })
    .where(
      'hash',
      'in',
      rows.map((row) => row.hash),
    )
    .execute();
}

/** The ops were left out of the bundle transaction that was mined: they wait in the mempool again. */
export async function returnToMempool(db: Kysely<Tables>, rows: readonly UserOperationRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .updateTable('user_operations')
    .set({ status: 'pending', tx_hash: null, updated_at: new Date() })
    .where(
      'hash',
      'in',
      rows.map((row) => row.hash),
    )
    .execute();
}
