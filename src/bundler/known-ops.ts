import type { Kysely } from 'kysely';
import type { Hex, PublicClient } from 'viem';
import type { Tables } from '../db/tables.ts';
import { type EntryPoint, entryPointAbiOf } from './entry-points.ts';
import { minedBundleOf } from './mined-bundle.ts';
import { alreadyKnown, invalidParams } from './rpc-errors.ts';
import { findUserOperation } from './user-operation-lookup.ts';

/** How far back an op sent again is looked for on chain when its nonce is used (the receipts' lookback). */
const chainLookbackBlocks = 9_999n;

/**
 * The refusal of an op sent again whose hash is in the mempool (pending, or in a bundle on its way)
 * or was included through this bundler, as Alto and Rundler refuse it ("already known"); undefined
 * for an unknown op, or one that was dropped (failed, replaced), which may be sent again. A submitted
 * op whose bundle the node already has in a block is included, as its receipt and status say.
 */
export async function knownOpError(db: Kysely<Tables>, client: PublicClient, hash: string) {
  const row = await findUserOperation(db, hash);
  if (row?.status === 'submitted') {
    const mined = await minedBundleOf(client, row);
    if (mined) return alreadyIncluded(hash, mined.receipt.blockNumber, mined.receipt.transactionHash);
  }
  if (row?.status === 'pending' || row?.status === 'submitted') return alreadyKnown(hash);
  if (row?.status === 'included') return alreadyIncluded(hash, row.block_number, row.tx_hash);
  return undefined;
}

/**
 * An op whose nonce is used, looked for on chain (another bundler may have included it): its
 * UserOperationEvent in the last 10,000 blocks makes the refusal "already known".
 */
export async function includedOnChainError(client: PublicClient, entryPoint: EntryPoint, hash: Hex) {
  const found = await findUserOperationEvent(client, entryPoint, hash);
  return found ? alreadyIncluded(hash, found.blockNumber, found.transactionHash) : undefined;
}

/** The op's UserOperationEvent in the last 10,000 blocks: where it was included, if it was. */
export async function findUserOperationEvent(
  client: PublicClient,
  entryPoint: EntryPoint,
  hash: Hex,
): Promise<{ blockNumber: bigint; transactionHash: Hex } | undefined> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const logs = await client.getContractEvents({
    address: entryPoint.address,
    abi: entryPointAbiOf(entryPoint.version),
    eventName: 'UserOperationEvent',
    args: { userOpHash: hash },
    fromBlock: head > chainLookbackBlocks ? head - chainLookbackBlocks : 0n,
    toBlock: head,
  });
  const found = logs[0];
  return found ? { blockNumber: found.blockNumber, transactionHash: found.transactionHash } : undefined;
}

function alreadyIncluded(hash: string, block: string | bigint | null, tx: string | null) {
  const where = block === null ? '' : ` in block ${block}${tx ? ` (transaction ${tx})` : ''}`;
  return invalidParams(`already known: the UserOperation ${hash} was already included${where}`);
}
