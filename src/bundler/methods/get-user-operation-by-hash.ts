import { type Hex, toHex } from 'viem';
import type { Network } from '../../chains/registry.ts';
import { bundledUserOperations } from '../bundled-user-operation.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { minedBundleOf } from '../mined-bundle.ts';
import { findUserOperation } from '../user-operation-lookup.ts';
import { findUserOperationOnChain } from '../user-operation-on-chain.ts';

/**
 * eth_getUserOperationByHash: the op, its EntryPoint and, once included, its bundle's transaction and
 * block; a submitted op whose bundle the node already has in a block is included (as its receipt says).
 * An op this bundler never saw, or dropped, is looked for on chain as eth_getUserOperationReceipt does.
 */
export async function getUserOperationByHash(ctx: Pick<BundlerContext, 'db' | 'clientOf'>, network: Network, params: unknown[]) {
  const row = await findUserOperation(ctx.db, params[0]);
  if (row?.status === 'replaced') return null;
  if (!row || row.status === 'failed') {
    const landed = await operationFromChain(ctx, network, (params[0] as string).toLowerCase() as Hex);
    if (landed || !row) return landed ?? null;
  }
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

/**
 * The op as its bundle transaction carried it: its UserOperationEvent's place among the bundle's is
 * its place in the `handleOps` input (every op of a bundle that did not revert has one, in order).
 * Undefined when the bundle went through another contract, so its input is not `handleOps`.
 */
async function operationFromChain(ctx: Pick<BundlerContext, 'clientOf'>, network: Network, hash: Hex) {
  const client = ctx.clientOf(network);
  const found = await findUserOperationOnChain(client, network, hash);
  if (!found) return undefined;
  const { entryPoint, receipt, events, outcome } = found;
  const position = events
    .filter((entry) => entry.eventName === 'UserOperationEvent')
    .findIndex((entry) => entry.eventName === 'UserOperationEvent' && entry.args.userOpHash.toLowerCase() === hash);
  const { input } = await client.getTransaction({ hash: receipt.transactionHash });
  const op = bundledUserOperations(entryPoint.version, input)?.[position];
  if (
    !op ||
    String(op.sender).toLowerCase() !== outcome.event.sender.toLowerCase() ||
    BigInt(String(op.nonce)) !== outcome.event.nonce
  )
    return undefined;
  return {
    userOperation: op,
    entryPoint: entryPoint.address.toLowerCase(),
    transactionHash: receipt.transactionHash,
    blockHash: receipt.blockHash,
    blockNumber: toHex(receipt.blockNumber),
  };
}
