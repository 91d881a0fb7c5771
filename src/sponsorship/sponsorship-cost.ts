import { maxCostOf } from '../bundler/op-max-cost.ts';
import { type L1PricedOp, opGasPrice, requiredPreVerificationGas } from '../bundler/pre-verification-gas.ts';
import type { AnyUserOperation, EntryPointVersion } from '../bundler/user-operation.ts';
import type { L1FeeOracle } from '../gas/l1-fee/l1-fee-oracle.ts';

/**
 * The most a sponsored op can cost its paymaster: the prefund the EntryPoint takes before running it
 * (every gas limit at maxFeePerGas; v0.6 counts the verification limit three times when a paymaster
 * pays, for its postOp), counted as paid by a paymaster before its paymaster fields are filled in. The
 * actual charge, EntryPoint v0.7's 10% penalty on unused execution gas included, never exceeds it. Pure.
 */
export function maxCostWei(op: AnyUserOperation, version: EntryPointVersion): bigint {
  return maxCostOf(op, version, true);
}

/**
 * The op as its cost is counted on a rollup: its preVerificationGas at least what the bundler requires,
 * its L1 part included (at the op's price at `baseFee`), so that the caps count the L1 fee even for an
 * op estimated elsewhere without it. Unchanged off rollups.
 */
export async function withL1PreVerificationGas(
  oracle: L1FeeOracle,
  priced: L1PricedOp,
  baseFee: bigint,
): Promise<AnyUserOperation> {
  if (!oracle.charged) return priced.op;
  const price = opGasPrice(priced.op, baseFee);
  const required = await requiredPreVerificationGas(oracle, priced, price > 0n ? price : 1n);
  return required > priced.op.preVerificationGas ? { ...priced.op, preVerificationGas: required } : priced.op;
}
