import { toHex } from 'viem';
import type { Network } from '../../chains/registry.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { minedBundleOf } from '../mined-bundle.ts';
import { findUserOperation } from '../user-operation-lookup.ts';

/**
 * eth_getUserOperationByHash: the op, its EntryPoint and, once included, its bundle's transaction and
 * block; a submitted op whose bundle the node already has in a block is included (as its receipt says).
 */
export async function getUserOperationByHash(ctx: Pick<BundlerContext, 'db' | 'clientOf'>, network: Network, params: unknown[]) {
  const row = await findUserOperation(ctx.db, params[0]);
  if (!row || row.status === 'replaced') return null;
  const mined = await minedBundleOf(ctx.clientOf(network), row);
  if (mined) {
    const { transactionHash, blockHash, blockNumber } = mined.receipt;
    return { userOperation: row.op, entryPoint: row.entry_point, transactionHash, blockHash, blockNumber: toHex(blockNumber) };
  }
  const included = row.status === 'included';
  return {
    userOperation: row.op,
    entryPoint: row.entry_point,
    transactionHash: included ? row.tx_hash : null,
    blockHash: included ? row.block_hash : null,
    blockNumber: included && row.block_number !== null ? toHex(BigInt(row.block_number)) : null,
  };
}
