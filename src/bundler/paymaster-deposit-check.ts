import type { Kysely } from 'kysely';
import type { Address, PublicClient } from 'viem';
import type { Tables } from '../db/tables.ts';
import { entryPointV06Abi } from '../erc4337/contracts/abis.ts';
import { maxCostOf } from './op-max-cost.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';
import { type EntryPointVersion, parseUserOperation } from './user-operation.ts';

export interface PendingDeposit {
  /** The paymaster's deposit in the EntryPoint. */
  deposit: bigint;
  /** The ops of the paymaster in the mempool (pending or in a bundle on its way) and what they may cost it. */
  pending: { hash: string; cost: bigint }[];
}

/**
 * The paymaster's deposit and its ops in the mempool, read together (started beside the op's
 * simulation, so that a send waits for neither).
 */
export async function readPendingDeposit(
  db: Kysely<Tables>,
  client: PublicClient,
  where: { network: string; entryPoint: Address; paymaster: string },
): Promise<PendingDeposit> {
  const [deposit, rows] = await Promise.all([
    client.readContract({
      address: where.entryPoint,
      abi: entryPointV06Abi,
      functionName: 'balanceOf',
      args: [where.paymaster as Address],
    }),
    db
      .selectFrom('user_operations')
      .select(['hash', 'op', 'entry_point_version'])
      .where('network', '=', where.network)
      .where('entry_point', '=', where.entryPoint)
      .where('paymaster', '=', where.paymaster)
      .where('status', 'in', ['pending', 'submitted'])
      .execute(),
  ]);
  return {
    deposit,
    pending: rows.map((row) => ({ hash: row.hash, cost: storedCostOf(row.op, row.entry_point_version) })),
  };
}

/** What a stored op may cost; 0 for a row that no longer parses (it was validated when stored). */
function storedCostOf(op: unknown, version: EntryPointVersion): bigint {
  try {
    return maxCostOf(parseUserOperation(version, op), version);
  } catch {
    return 0n;
  }
}

/**
 * ERC-7769's -32508: the paymaster's deposit cannot pay for this op beside its ops already in the
 * mempool, so one of them would fail with AA31 in its bundle. The op it replaces, if any, is not
 * counted. Undefined: the deposit covers them all.
 */
export function pendingDepositError(
  state: PendingDeposit,
  op: { cost: bigint; paymaster: string; replacing?: string },
): BundlerRpcError | undefined {
  const others = state.pending.filter((entry) => entry.hash !== op.replacing);
  const owed = others.reduce((sum, entry) => sum + entry.cost, 0n);
  if (owed + op.cost <= state.deposit) return undefined;
  return new BundlerRpcError(
    bundlerErrorCodes.paymasterDepositTooLow,
    `AA31 paymaster deposit too low: the deposit of the paymaster ${op.paymaster} (${state.deposit} wei) cannot pay for this operation (up to ${op.cost} wei) beside its ${others.length} operations already in the mempool (up to ${owed} wei); deposit more, or send it once those have landed`,
    { reason: 'AA31 paymaster deposit too low', deposit: `0x${state.deposit.toString(16)}`, pending: others.length },
  );
}
