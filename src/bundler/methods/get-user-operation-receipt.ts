import { getAddress, type Hex } from 'viem';
import type { Network } from '../../chains/registry.ts';
import type { UserOperationRow } from '../../db/tables/bundler.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { toJsonSafe } from '../json-quantities.ts';
import { minedBundleOf } from '../mined-bundle.ts';
import { findUserOperation } from '../user-operation-lookup.ts';
import { findUserOperationOnChain } from '../user-operation-on-chain.ts';
import { userOperationReceipt } from '../user-operation-receipt.ts';

/** eth_getUserOperationReceipt: the recorded receipt, null while the op waits, or one found on chain. */
export async function getUserOperationReceipt(ctx: Pick<BundlerContext, 'db' | 'clientOf'>, network: Network, hash: unknown) {
  const row = await findUserOperation(ctx.db, hash);
  if (row?.status === 'included' && row.receipt) return row.receipt;
  // Its bundle may be in a block already, which the bundler records a moment later: the node's receipt says so now.
  if (row?.status === 'submitted' && row.tx_hash) return (await receiptOfSubmitted(ctx, network, row)) ?? null;
  // A dropped op may still have landed through another bundler: its event on chain says so.
  if (row && row.status !== 'failed') return null;
  return receiptFromChain(ctx, network, (hash as string).toLowerCase() as Hex);
}

/** An op this bundler never saw, or dropped: the receipt built from its bundle's transaction, if it landed. */
async function receiptFromChain(ctx: Pick<BundlerContext, 'clientOf'>, network: Network, hash: Hex) {
  const found = await findUserOperationOnChain(ctx.clientOf(network), network, hash);
  if (!found) return null;
  const { entryPoint, receipt, outcome } = found;
  return toJsonSafe(userOperationReceipt({ hash }, entryPoint.address, receipt, outcome.event, outcome.revertReason));
}

/** The receipt of an op whose bundle was sent, once the node has the bundle in a block, as the bundler will record it. */
async function receiptOfSubmitted(ctx: Pick<BundlerContext, 'clientOf'>, network: Network, row: UserOperationRow) {
  const mined = await minedBundleOf(ctx.clientOf(network), row);
  if (!mined) return undefined;
  const { receipt, outcome } = mined;
  return toJsonSafe(userOperationReceipt(row, getAddress(row.entry_point), receipt, outcome.event, outcome.revertReason));
}
