import type { Address, SignedAuthorization } from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { entryPointV07Abi } from '../erc4337/contracts/abis.ts';
import { withAuthorizations } from './eip7702-chain.ts';
import { entryPointAbiOf } from './entry-points.ts';
import { v06Struct } from './simulation.ts';
import { type AnyUserOperation, type EntryPointVersion, parseUserOperation } from './user-operation.ts';

/** The op a mempool row holds. */
export const opOfRow = (row: UserOperationRow): AnyUserOperation => parseUserOperation(row.entry_point_version, row.op);

/**
 * The EntryPoint's handleOps of the rows' ops, paying `beneficiary`, with the EIP-7702 authorizations
 * the bundle carries: the same call is estimated and sent.
 */
export function handleOpsCall(
  entryPoint: Address,
  version: EntryPointVersion,
  rows: readonly UserOperationRow[],
  beneficiary: Address,
  authorizations: readonly SignedAuthorization[],
) {
  const ops = rows.map((row) => {
    const op = opOfRow(row);
    return version !== '0.6' ? toPackedUserOperation(op as UserOperation<'0.7'>) : v06Struct(op);
  });
  return {
    address: entryPoint,
    abi: entryPointAbiOf(version) as typeof entryPointV07Abi,
    functionName: 'handleOps' as const,
    args: [ops as never, beneficiary] as const,
    ...withAuthorizations(authorizations),
  };
}
