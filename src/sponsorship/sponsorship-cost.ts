import { maxCostOf } from '../bundler/op-max-cost.ts';
import type { AnyUserOperation, EntryPointVersion } from '../bundler/user-operation.ts';

/**
 * The most a sponsored op can cost its paymaster: the prefund the EntryPoint takes before running it
 * (every gas limit at maxFeePerGas; v0.6 counts the verification limit three times when a paymaster
 * pays, for its postOp), counted as paid by a paymaster before its paymaster fields are filled in. The
 * actual charge, EntryPoint v0.7's 10% penalty on unused execution gas included, never exceeds it. Pure.
 */
export function maxCostWei(op: AnyUserOperation, version: EntryPointVersion): bigint {
  return maxCostOf(op, version, true);
}
