import type { Address, Hex } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { BundleContext } from './bundle-context.ts';
import { afterRevertedBundle, markFailed, markIncluded, requeueBundle } from './bundle-status.ts';
import { toQuantityJson } from './json-quantities.ts';
import type { EntryPointVersion } from './user-operation.ts';
import { entryPointEventsIn, userOperationOutcomeIn } from './user-operation-events.ts';
import { userOperationReceipt } from './user-operation-receipt.ts';

/** How long a sent bundle's receipt is waited for. */
export const receiptTimeoutMs = 60_000;

/** Waits for a bundle's receipt and records each op's outcome from its UserOperationEvent. */
export async function settleBundle(
  ctx: BundleContext,
  rows: readonly UserOperationRow[],
  txHash: Hex,
  entryPoint: Address,
  version: EntryPointVersion,
): Promise<void> {
  const receipt = await ctx.client.waitForTransactionReceipt({ hash: txHash, pollingInterval: 100, timeout: receiptTimeoutMs });
  if (receipt.status === 'reverted') {
    await afterRevertedBundle(ctx, rows, txHash);
    return;
  }
  const events = entryPointEventsIn(version, receipt.logs);
  const includedSenders: string[] = [];
  for (const row of rows) {
    const outcome = userOperationOutcomeIn(events, row.hash);
    if (!outcome) {
      await markFailed(ctx, row, `not executed by bundle ${txHash} (status ${receipt.status})`);
      continue;
    }
    const answer = userOperationReceipt(row, entryPoint, receipt, outcome.event, outcome.revertReason);
    await markIncluded(ctx.db, row, txHash, receipt, toQuantityJson(answer));
    await ctx.reputation.count(
      ctx.name,
      [row.factory, row.paymaster].filter((address): address is string => address !== null),
      'ops_included',
    );
    includedSenders.push(row.sender);
  }
  // A staked sender was counted as seen (its row exists); an unstaked one has no reputation. One statement a bundle.
  await ctx.reputation.countIncludedIfKnown(ctx.name, includedSenders);
}

/**
 * Bundles sent but never settled (an error after sending, a restart), except those a bundle of this
 * process is still watching: each is settled from its receipt, or, without one, its ops go back to
 * the mempool.
 */
export async function resumeSubmittedBundles(
  ctx: BundleContext,
  isWatched: (row: Pick<UserOperationRow, 'hash' | 'sender'>) => boolean,
): Promise<void> {
  const submitted = await ctx.db
    .selectFrom('user_operations')
    .selectAll()
    .where('network', '=', ctx.name)
    .where('status', '=', 'submitted')
    .execute()
    .then((rows) => rows.filter((row) => !isWatched(row)));
  for (const [txHash, rows] of groupByTx(submitted)) {
    try {
      await settleBundle(ctx, rows, txHash as Hex, rows[0]!.entry_point as Address, rows[0]!.entry_point_version);
    } catch (error) {
      ctx.logger.warn(
        { err: error, tx: txHash },
        'a bundle sent before the restart has no receipt: its ops go back to the mempool',
      );
      await requeueBundle(ctx.db, txHash);
    }
  }
}

function groupByTx(rows: readonly UserOperationRow[]): Map<string, UserOperationRow[]> {
  const groups = new Map<string, UserOperationRow[]>();
  for (const row of rows) {
    if (!row.tx_hash) continue;
    groups.set(row.tx_hash, [...(groups.get(row.tx_hash) ?? []), row]);
  }
  return groups;
}
