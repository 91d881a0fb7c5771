import type { UserOperation } from 'viem/account-abstraction';
import type { AnyUserOperation, EntryPointVersion } from './user-operation.ts';

/**
 * The most an op can cost whoever pays for it: the EntryPoint's requiredPrefund, every gas limit at
 * maxFeePerGas (v0.6 counts verificationGasLimit three times when a paymaster pays, for its postOp).
 * `paymasterPays` defaults to whether the op names a paymaster; a sponsor asks before it signs one in.
 */
export function maxCostOf(op: AnyUserOperation, version: EntryPointVersion, paymasterPays = namesPaymaster(op)): bigint {
  if (version !== '0.6') {
    const v07 = op as UserOperation<'0.7'>;
    const gas =
      v07.callGasLimit +
      v07.verificationGasLimit +
      (v07.paymasterVerificationGasLimit ?? 0n) +
      (v07.paymasterPostOpGasLimit ?? 0n) +
      v07.preVerificationGas;
    return gas * v07.maxFeePerGas;
  }
  const multiplier = paymasterPays ? 3n : 1n;
  return (op.callGasLimit + op.verificationGasLimit * multiplier + op.preVerificationGas) * op.maxFeePerGas;
}

function namesPaymaster(op: AnyUserOperation): boolean {
  const paymasterAndData = (op as UserOperation<'0.6'>).paymasterAndData;
  return Boolean(paymasterAndData) && paymasterAndData !== '0x';
}
