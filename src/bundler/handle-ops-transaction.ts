import { type Address, encodeFunctionData, type Hex, type SignedAuthorization, serializeTransaction } from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import type { entryPointV07Abi } from '../erc4337/contracts/abis.ts';
import { type L1CostQuery, stubSignature } from '../gas/l1-fee/l1-cost.ts';
import { entryPointAbiOf } from './entry-points.ts';
import { v06Struct } from './simulation.ts';
import type { AnyUserOperation, EntryPointVersion } from './user-operation.ts';

/** The fields of a bundle transaction beside its calldata. */
export interface BundleEnvelope {
  readonly chainId: number;
  readonly nonce: number;
  readonly gas: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly authorizationList?: readonly SignedAuthorization[];
}

/** handleOps(ops, beneficiary) calldata. Pure. */
export function handleOpsData(version: EntryPointVersion, ops: readonly AnyUserOperation[], beneficiary: Address): Hex {
  const encoded = ops.map((op) => (version !== '0.6' ? toPackedUserOperation(op as UserOperation<'0.7'>) : v06Struct(op)));
  return encodeFunctionData({
    abi: entryPointAbiOf(version) as typeof entryPointV07Abi,
    functionName: 'handleOps',
    args: [encoded as never, beneficiary],
  });
}

/** The bundle transaction as its L1 cost is asked: type 2 (type 4 with authorizations). Pure. */
export function bundleTransactionOf(entryPoint: Address, data: Hex, envelope: BundleEnvelope) {
  const { authorizationList, ...fields } = envelope;
  return authorizationList && authorizationList.length > 0
    ? ({ type: 'eip7702', to: entryPoint, data, ...fields, authorizationList: [...authorizationList] } as const)
    : ({ type: 'eip1559', to: entryPoint, data, ...fields } as const);
}

/**
 * The L1 cost query of a bundle not signed yet: serialized with a stand-in signature of a real one's
 * size and entropy (the same bytes for the same bundle, so repeated queries hit the oracle's cache). Pure.
 */
export function unsignedBundleQuery(entryPoint: Address, data: Hex, envelope: BundleEnvelope): L1CostQuery {
  const transaction = bundleTransactionOf(entryPoint, data, envelope);
  return { to: entryPoint, data, serialized: serializeTransaction(transaction, stubSignature(data)) };
}
