import { toHex } from 'viem';
import type { BundlerContext } from '../bundler-context.ts';
import { findUserOperation } from '../user-operation-lookup.ts';

/** eth_getUserOperationByHash: the op, its EntryPoint and, once included, its bundle's transaction and block. */
export async function getUserOperationByHash(ctx: Pick<BundlerContext, 'db'>, params: unknown[]) {
  const row = await findUserOperation(ctx.db, params[0]);
  if (!row || row.status === 'replaced') return null;
  return {
    userOperation: row.op,
    entryPoint: row.entry_point,
    transactionHash: row.status === 'included' ? row.tx_hash : null,
    blockHash: row.status === 'included' ? row.block_hash : null,
    blockNumber: row.status === 'included' && row.block_number !== null ? toHex(BigInt(row.block_number)) : null,
  };
}
