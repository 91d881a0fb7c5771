import type { UserOperation } from 'viem/account-abstraction';
import type { AnyUserOperation, EntryPointVersion } from '../bundler/user-operation.ts';

/**
 * The most a sponsored op can cost its paymaster: the prefund the EntryPoint takes before running it
 * (every gas limit at maxFeePerGas; v0.6 counts the verification limit three times when a paymaster
 * pays, for its postOp). The actual charge, EntryPoint v0.7's 10% penalty on unused execution gas
 * included, never exceeds it. Pure.
 */
export function maxCostWei(op: AnyUserOperation, version: EntryPointVersion): bigint {
  if (version === '0.7') {
    const v07 = op as UserOperation<'0.7'>;
    const gas =
      v07.preVerificationGas +
      v07.verificationGasLimit +
      v07.callGasLimit +
      (v07.paymasterVerificationGasLimit ?? 0n) +
      (v07.paymasterPostOpGasLimit ?? 0n);
    return gas * v07.maxFeePerGas;
  }
  return (op.preVerificationGas + op.verificationGasLimit * 3n + op.callGasLimit) * op.maxFeePerGas;
}
