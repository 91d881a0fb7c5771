import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { BundleContext } from './bundle-context.ts';
import { markFailed } from './bundle-status.ts';
import { explainAaReason } from './rpc-errors.ts';
import { revertOf } from './simulation.ts';

/**
 * handleOps' gas for the ops, from `estimate`; an op the EntryPoint refuses (FailedOp or
 * FailedOpWithRevert, which name its index) leaves the mempool with its reason and the others are
 * estimated again. The ops left and their gas; undefined when every op was refused.
 */
export async function estimateDroppingRefused(
  ctx: Pick<BundleContext, 'db' | 'logger'>,
  batch: readonly UserOperationRow[],
  estimate: (rows: readonly UserOperationRow[]) => Promise<bigint>,
): Promise<{ rows: UserOperationRow[]; gas: bigint } | undefined> {
  let rows = [...batch];
  while (rows.length > 0) {
    try {
      return { rows, gas: await estimate(rows) };
    } catch (error) {
      const reverted = revertOf(error);
      if (reverted?.errorName !== 'FailedOp' && reverted?.errorName !== 'FailedOpWithRevert') throw error;
      const bad = rows[Number(reverted.args?.[0] ?? 0)];
      if (!bad) throw error;
      await markFailed(ctx, bad, explainAaReason(String(reverted.args?.[1] ?? 'refused by the EntryPoint')));
      rows = rows.filter((row) => row !== bad);
    }
  }
  return undefined;
}
