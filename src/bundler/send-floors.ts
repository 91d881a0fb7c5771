import { preVerificationGasOf } from './gas-estimation.ts';
import { type BundlerRpcError, invalidParams } from './rpc-errors.ts';
import type { AnyUserOperation, EntryPointVersion } from './user-operation.ts';

/**
 * The bundler's own floors for an op (-32602): `maxFeePerGas` at least the next block's base fee (the
 * earliest it can land in); `maxPriorityFeePerGas` at least the chain's minimum tip (`minTip`,
 * Polygon's: a bundle bids no more than its ops' lowest tip, and the chain's nodes refuse a transaction
 * under the minimum); and `preVerificationGas` at least what the op's share of the bundle costs, on a
 * rollup with its L1 part (`l1PreVerificationGas`, pre-verification-gas.ts) at the op's own price.
 * Checked only for an op that validates: an op that fails simulation is told that first (what the
 * account or paymaster must fix), whatever its fees. Undefined: the op clears them all.
 */
export function sendFloorError(
  op: AnyUserOperation,
  version: EntryPointVersion,
  floors: { baseFee: bigint | null; l1PreVerificationGas?: bigint; minTip?: bigint },
): BundlerRpcError | undefined {
  const { baseFee, l1PreVerificationGas = 0n, minTip = 0n } = floors;
  if (op.maxPriorityFeePerGas < minTip) {
    return invalidParams(
      `maxPriorityFeePerGas ${op.maxPriorityFeePerGas} is below this chain's minimum priority fee ${minTip}: its nodes refuse such a bundle (pimlico_getUserOperationGasPrice quotes fees above it)`,
      'maxPriorityFeePerGas',
    );
  }
  if (baseFee !== null && op.maxFeePerGas < baseFee) {
    return invalidParams(
      `maxFeePerGas ${op.maxFeePerGas} is below the next block's base fee ${baseFee}: it could not be included (pimlico_getUserOperationGasPrice quotes fees with room)`,
      'maxFeePerGas',
    );
  }
  const preVerificationGas = preVerificationGasOf(op, version) + l1PreVerificationGas;
  if (op.preVerificationGas < preVerificationGas) {
    const l1 =
      l1PreVerificationGas > 0n
        ? `, ${l1PreVerificationGas} of it for its share of the bundle's L1 data fee at its own gas price`
        : '';
    return invalidParams(
      `preVerificationGas ${op.preVerificationGas} is below the ${preVerificationGas} this operation needs${l1} (eth_estimateUserOperationGas gives it)`,
      'preVerificationGas',
    );
  }
  return undefined;
}
