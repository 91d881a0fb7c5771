import type { Kysely, Updateable } from 'kysely';
import type { Logger } from 'pino';
import type { Hex, TransactionReceipt } from 'viem';
import type { UserOperationRow, UserOperationStatus, UserOperationsTable } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';

/** The ops' row updated to `values`, their time of change now (only rows now in one of `from`, when given). */
async function updateOps(
  db: Kysely<Tables>,
  rows: readonly Pick<UserOperationRow, 'hash'>[],
  values: Updateable<UserOperationsTable>,
  from?: readonly UserOperationStatus[],
): Promise<void> {
  let update = db
    .updateTable('user_operations')
    .set({ ...values, updated_at: new Date() })
    .where(
      'hash',
      'in',
      rows.map((row) => row.hash),
    );
  if (from) update = update.where('status', 'in', [...from]);
  await update.execute();
}

/** The ops are in bundle transaction `txHash` (sent, or a replacement of it). */
export async function markSubmitted(db: Kysely<Tables>, rows: readonly UserOperationRow[], txHash: Hex): Promise<void> {
  // An op its sender replaced meanwhile stays replaced (the bundle is swapped next, bundle-swap.ts).
  await updateOps(db, rows, { status: 'submitted', tx_hash: txHash }, ['pending', 'submitted']);
}

/** The ops were left out of the bundle transaction that was mined: they wait in the mempool again. */
export async function returnToMempool(db: Kysely<Tables>, rows: readonly UserOperationRow[]): Promise<void> {
  if (rows.length === 0) return;
  await updateOps(db, rows, { status: 'pending', tx_hash: null }, ['submitted']);
}

/** The op leaves the mempool, with the reason its sender reads in eth_getUserOperationReceipt's absence. */
export async function markFailed(
  deps: { db: Kysely<Tables>; logger: Logger },
  row: Pick<UserOperationRow, 'hash'>,
  reason: string,
): Promise<void> {
  await updateOps(deps.db, [row], { status: 'failed', reason });
  deps.logger.info({ userOpHash: row.hash, reason }, 'user operation dropped');
}

/** The op ran in bundle `txHash`, mined in `receipt`'s block; `receiptJson` is eth_getUserOperationReceipt's answer. */
export async function markIncluded(
  db: Kysely<Tables>,
  row: Pick<UserOperationRow, 'hash'>,
  txHash: Hex,
  receipt: Pick<TransactionReceipt, 'blockNumber' | 'blockHash'>,
  receiptJson: string,
): Promise<void> {
  await updateOps(db, [row], {
    status: 'included',
    tx_hash: txHash,
    block_number: receipt.blockNumber.toString(),
    block_hash: receipt.blockHash,
    receipt: receiptJson,
  });
}

/** A bundle sent before a restart has no receipt: its ops still marked as in it wait in the mempool again. */
export async function requeueBundle(db: Kysely<Tables>, txHash: string): Promise<void> {
  await db
    .updateTable('user_operations')
    .set({ status: 'pending', tx_hash: null })
    .where('tx_hash', '=', txHash)
    .where('status', '=', 'submitted')
    .execute();
}

/** Bundles carrying an op that may revert on chain before the op is dropped (bounded: the executor pays each). */
export const maxBundleReverts = 3;

/**
 * A bundle reverted on chain (its ops passed simulation and the bundle's estimate, but not the
 * block): none of its ops ran. Each goes back to the mempool with one more revert counted, to be
 * bundled alone from now on (bundle-batch.ts), so the op that makes bundles revert is found and the
 * others land; an op that reached `maxBundleReverts` is dropped with the reason.
 */
export async function afterRevertedBundle(
  deps: { db: Kysely<Tables>; logger: Logger },
  rows: readonly UserOperationRow[],
  txHash: Hex,
): Promise<void> {
  for (const row of rows) {
    const reverts = row.bundle_reverts + 1;
    if (reverts >= maxBundleReverts) {
      await updateOps(deps.db, [row], {
        status: 'failed',
        bundle_reverts: reverts,
        reason: `dropped after ${reverts} bundles carrying it reverted on chain (the last ${txHash}): it passes simulation but not once mined`,
      });
      deps.logger.warn({ userOpHash: row.hash, tx: txHash, reverts }, 'user operation dropped: its bundles revert on chain');
    } else {
      await updateOps(deps.db, [row], { status: 'pending', tx_hash: null, bundle_reverts: reverts });
    }
  }
  deps.logger.warn({ tx: txHash, ops: rows.length }, 'bundle reverted on chain: its ops are bundled alone from now on');
}
