import type { Network } from '../../chains/registry.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { minedBundleOf } from '../mined-bundle.ts';
import { findUserOperation } from '../user-operation-lookup.ts';

/** The mempool's statuses in Alto's words. */
const pimlicoStatus = {
  pending: 'not_submitted',
  submitted: 'submitted',
  included: 'included',
  failed: 'rejected',
  replaced: 'rejected',
} as const;

/**
 * pimlico_getUserOperationStatus (Alto's extension): where the op is, and its bundle's transaction; a
 * submitted op whose bundle the node already has in a block is included (as its receipt says).
 */
export async function getUserOperationStatus(ctx: Pick<BundlerContext, 'db' | 'clientOf'>, network: Network, params: unknown[]) {
  const row = await findUserOperation(ctx.db, params[0]);
  if (!row) return { status: 'not_found', transactionHash: null };
  if (await minedBundleOf(ctx.clientOf(network), row)) return { status: 'included', transactionHash: row.tx_hash };
  return { status: pimlicoStatus[row.status], transactionHash: row.tx_hash };
}
