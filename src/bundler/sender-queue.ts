import type { Kysely } from 'kysely';
import type { Address, PublicClient, StateOverride } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';
import { readOnChainNonce } from './entry-points.ts';
import { earlierOpsOf, nonceOverride, queuedStateOverride } from './queued-state.ts';
import type { AnyUserOperation, EntryPointVersion } from './user-operation.ts';

/** Whether every nonce of the op's key from `onChain` up to the op's is in the mempool (or landed through it). */
export async function earlierAllKnown(
  db: Kysely<Tables>,
  network: string,
  entryPoint: Address,
  op: AnyUserOperation,
  onChain: bigint,
): Promise<boolean> {
  const rows = await db
    .selectFrom('user_operations')
    .select('nonce')
    .where('network', '=', network)
    .where('entry_point', '=', entryPoint)
    .where('sender', '=', op.sender)
    .where('status', 'in', ['pending', 'submitted', 'included'])
    .where('nonce', '>=', onChain.toString())
    .where('nonce', '<', op.nonce.toString())
    .execute();
  const known = new Set(rows.map((row) => BigInt(row.nonce)));
  for (let nonce = onChain; nonce < op.nonce; nonce++) if (!known.has(nonce)) return false;
  return true;
}

/**
 * The state an op is estimated in: for one that comes after the sender's queued ops on its key (the
 * client prepares nonce N+3 while N to N+2 are pending), the state they leave, with its nonce next;
 * nothing for the next nonce on chain. Nonces past a gap are estimated as if the gap were filled.
 */
export async function estimationState(
  db: Kysely<Tables>,
  client: PublicClient,
  network: string,
  entryPoint: { version: EntryPointVersion; address: Address },
  op: AnyUserOperation,
): Promise<StateOverride> {
  const key = op.nonce >> 64n;
  const rows = await readQueuedOfSender(db, network, entryPoint.address, op.sender);
  const onKey = rows.filter((row) => BigInt(row.nonce) >> 64n === key);
  if (onKey.length === 0) return [];
  const onChain = await readOnChainNonce(client, entryPoint.address, op.sender, key);
  if (op.nonce <= onChain) return [];
  const earlier = earlierOpsOf(onKey, entryPoint.version, onChain, op.nonce);
  const state =
    earlier.length > 0
      ? await queuedStateOverride({ client, version: entryPoint.version, entryPoint: entryPoint.address, op, earlier })
      : 'stale';
  return state === 'stale' ? nonceOverride(entryPoint.address, op.sender, op.nonce) : state;
}

export type QueuedOp = Pick<
  UserOperationRow,
  'hash' | 'nonce' | 'max_fee_per_gas' | 'max_priority_fee_per_gas' | 'status' | 'op'
>;

/** The sender's ops in the mempool for the EntryPoint: pending, or in a bundle on its way. */
export function readQueuedOfSender(
  db: Kysely<Tables>,
  network: string,
  entryPoint: Address,
  sender: Address,
): Promise<QueuedOp[]> {
  return db
    .selectFrom('user_operations')
    .select(['hash', 'nonce', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'status', 'op'])
    .where('network', '=', network)
    .where('entry_point', '=', entryPoint)
    .where('sender', '=', sender)
    .where('status', 'in', ['pending', 'submitted'])
    .execute();
}
