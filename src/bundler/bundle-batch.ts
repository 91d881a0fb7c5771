import type { PublicClient } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { BundleClaims } from './bundle-claims.ts';
import type { BundleContext } from './bundle-context.ts';
import { feesOfRow, paysNextBlock } from './bundle-fees.ts';
import { withoutStorageConflicts } from './bundle-storage-conflicts.ts';
import { queuedRunsInNonceOrder } from './nonce-runs.ts';

/** Pending ops that no bundle of this process holds (nor their sender), oldest first. */
export async function readWaitingOps(
  ctx: Pick<BundleContext, 'db' | 'name'>,
  claims: BundleClaims,
  limit: number,
): Promise<UserOperationRow[]> {
  const rows = await ctx.db
    .selectFrom('user_operations')
    .selectAll()
    .where('network', '=', ctx.name)
    .where('status', '=', 'pending')
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.filter((row) => !claims.holdsOpOrSender(row));
}

/**
 * The next bundle's ops, at most `maxBundleOps`: those of the oldest waiting op's EntryPoint, each
 * sender's consecutive nonces from its lowest, in nonce order, up to its first op that cannot pay
 * the next block's base fee (the later ones wait with it), and none in storage conflict (STO-041)
 * with an op before it or in a bundle on its way.
 */
export async function selectBatch(deps: {
  ctx: Pick<BundleContext, 'db' | 'name' | 'client'>;
  claims: BundleClaims;
  recentBaseFee: (client: PublicClient) => Promise<bigint | null>;
  maxBundleOps: number;
  /** Ops held back at this head (their L1 share not covered now, bundle-l1-fee.ts): they wait, and their sender's later ops with them. */
  held?: (row: UserOperationRow) => boolean;
}): Promise<UserOperationRow[]> {
  const { ctx, maxBundleOps } = deps;
  const [rows, nextBaseFee] = await Promise.all([
    readWaitingOps(ctx, deps.claims, maxBundleOps * 4),
    deps.recentBaseFee(ctx.client),
  ]);
  const entryPoint = rows[0]?.entry_point;
  const paysNext = (row: UserOperationRow) =>
    paysNextBlock(feesOfRow(row), { nextBaseFee: nextBaseFee ?? 0n }) && !deps.held?.(row);
  const runs = queuedRunsInNonceOrder(
    rows.filter((row) => row.entry_point === entryPoint),
    paysNext,
  );
  return isolatingSuspects(withoutStorageConflicts(runs, deps.claims.conflictsWithClaimed).slice(0, maxBundleOps));
}

/**
 * An op whose bundle reverted on chain goes alone, so a revert is its own: the ops before it in the
 * batch go first (without it), and when it is first, it goes by itself.
 */
export function isolatingSuspects(batch: readonly UserOperationRow[]): UserOperationRow[] {
  const suspect = batch.findIndex((row) => row.bundle_reverts > 0);
  if (suspect === -1) return [...batch];
  return suspect === 0 ? [batch[0]!] : batch.slice(0, suspect);
}
