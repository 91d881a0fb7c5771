import type { Hex } from 'viem';
import type { Network } from '../../chains/registry.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { minedBundleOf } from '../mined-bundle.ts';
import { findUserOperation } from '../user-operation-lookup.ts';
import { findUserOperationOnChain } from '../user-operation-on-chain.ts';

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
 * submitted op whose bundle the node already has in a block is included (as its receipt says), and so
 * is an op this bundler never saw, or dropped, that landed on chain (as eth_getUserOperationReceipt finds it).
 */
export async function getUserOperationStatus(ctx: Pick<BundlerContext, 'db' | 'clientOf'>, network: Network, params: unknown[]) {
  const row = await findUserOperation(ctx.db, params[0]);
  if (!row || row.status === 'failed') {
    const hash = (params[0] as string).toLowerCase() as Hex;
    const landed = await findUserOperationOnChain(ctx.clientOf(network), network, hash);
    if (landed) return { status: 'included', transactionHash: landed.receipt.transactionHash };
    if (!row) return { status: 'not_found', transactionHash: null };
  }
  if (await minedBundleOf(ctx.clientOf(network), row)) return { status: 'included', transactionHash: row.tx_hash };
  return { status: pimlicoStatus[row.status], transactionHash: row.tx_hash };
}
