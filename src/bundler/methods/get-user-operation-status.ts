import type { BundlerContext } from '../bundler-context.ts';
import { findUserOperation } from '../user-operation-lookup.ts';

/** The mempool's statuses in Alto's words. */
const pimlicoStatus = {
  pending: 'not_submitted',
  submitted: 'submitted',
  included: 'included',
  failed: 'rejected',
  replaced: 'rejected',
} as const;

/** pimlico_getUserOperationStatus (Alto's extension): where the op is, and its bundle's transaction. */
export async function getUserOperationStatus(ctx: Pick<BundlerContext, 'db'>, params: unknown[]) {
  const row = await findUserOperation(ctx.db, params[0]);
  if (!row) return { status: 'not_found', transactionHash: null };
  return { status: pimlicoStatus[row.status], transactionHash: row.tx_hash };
}
