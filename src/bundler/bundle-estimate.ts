import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { BundleContext } from './bundle-context.ts';
import { markFailed } from './bundle-status.ts';
import { explainAaReason } from './rpc-errors.ts';
import { revertOf } from './simulation.ts';

/**
 * handleOps' gas for the ops, from `estimate`; an op the EntryPoint refuses (FailedOp or
 * FailedOpWithRevert, which name its index) leaves the mempool with its reason and the others are
 * estimated again. An op refused for a used nonce (AA25) or an existing account (AA10) may have
 * landed already (a bundle sent by a process that died before recording it): `settleLanded` records
 * it from the chain when it did (true), else it is dropped. The ops left and their gas; undefined when
 * every op was refused.
 */
export async function estimateDroppingRefused(
  ctx: Pick<BundleContext, 'db' | 'logger'>,
  batch: readonly UserOperationRow[],
  estimate: (rows: readonly UserOperationRow[]) => Promise<bigint>,
  settleLanded: (row: UserOperationRow) => Promise<boolean> = async () => false,
  /** A dropped op, its reason, and whether it fails by itself too (then no other op broke it): for the reputations. */
  refused: (row: UserOperationRow, reason: string, refusedAlone: boolean) => Promise<void> = async () => undefined,
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
      const reason = String(reverted.args?.[1] ?? 'refused by the EntryPoint');
      if (!(/^AA(25|10)/.test(reason) && (await settleLanded(bad)))) {
        await markFailed(ctx, bad, explainAaReason(reason));
        await refused(bad, reason, rows.length === 1 || (await failsAlone(estimate, bad)));
      }
      rows = rows.filter((row) => row !== bad);
    }
  }
  return undefined;
}

/** Whether the EntryPoint refuses the op by itself too; an estimate that fails otherwise counts as yes (no one is blamed). */
async function failsAlone(
  estimate: (rows: readonly UserOperationRow[]) => Promise<bigint>,
  row: UserOperationRow,
): Promise<boolean> {
  return estimate([row]).then(
    () => false,
    () => true,
  );
}
