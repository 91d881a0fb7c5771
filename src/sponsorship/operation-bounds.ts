import type { UserOperation } from 'viem/account-abstraction';
import type { AnyUserOperation, EntryPointVersion } from '../bundler/user-operation.ts';
import { invalidRequest } from '../core/errors.ts';
import { maxCostWei } from './sponsorship-cost.ts';

/**
 * The largest gas value the EntryPoint takes: v0.6 and v0.7 both refuse an op whose gas limits or fees
 * need more than 120 bits ("AA94 gas values overflow"), below v0.7's uint128 packing.
 */
export const maxGasValue = 2n ** 120n - 1n;

/**
 * The most an op may cost to be sponsorable at all: EntryPoint v0.6 keeps a deposit in a uint112, and
 * no chain's native coin has a supply near it (Ethereum's is about 2^87 wei). A cost above it is a
 * client's mistake, never a deposit the operator could fund.
 */
export const maxFundableWei = 2n ** 112n - 1n;

const gasFields = [
  'callGasLimit',
  'verificationGasLimit',
  'preVerificationGas',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'paymasterVerificationGasLimit',
  'paymasterPostOpGasLimit',
] as const;

/** Each gas field within what the EntryPoint takes: 400 naming the field and the bound. Pure. */
export function assertGasFieldBounds(op: AnyUserOperation): void {
  for (const name of gasFields) {
    const value = (op as Partial<Record<(typeof gasFields)[number], bigint>>)[name];
    if (value !== undefined && value > maxGasValue)
      throw invalidRequest(
        `user_operation.${name}`,
        `is ${value}; at most 2^120-1 (${maxGasValue}): the EntryPoint refuses larger gas values (AA94)`,
      );
  }
}

/** The gas limit field that contributes most: the one a refusal names. */
function largestGasLimit(op: AnyUserOperation): string {
  const fields = [
    'callGasLimit',
    'verificationGasLimit',
    'preVerificationGas',
    'paymasterVerificationGasLimit',
    'paymasterPostOpGasLimit',
  ];
  const limitOf = (name: string) => (op as unknown as Record<string, bigint | undefined>)[name] ?? 0n;
  return fields.reduce((largest, name) => (limitOf(name) > limitOf(largest) ? name : largest));
}

/** The gas the EntryPoint reserves for the op (its prefund's gas: every limit, v0.6's verification three times with a paymaster). */
function reservedGas(op: AnyUserOperation, version: EntryPointVersion): bigint {
  if (version !== '0.6') {
    const v07 = op as UserOperation<'0.7'>;
    return (
      v07.preVerificationGas +
      v07.verificationGasLimit +
      v07.callGasLimit +
      (v07.paymasterVerificationGasLimit ?? 0n) +
      (v07.paymasterPostOpGasLimit ?? 0n)
    );
  }
  return op.preVerificationGas + op.verificationGasLimit * 3n + op.callGasLimit;
}

/**
 * An op that no block could hold, or whose most possible cost no deposit could cover, is a client's
 * mistake (400 naming the field and the bound), not a shortfall to retry. Pure.
 */
export function assertSponsorableCost(op: AnyUserOperation, version: EntryPointVersion, blockGasLimit: bigint): void {
  const gas = reservedGas(op, version);
  if (gas > blockGasLimit) {
    const limits =
      version !== '0.6'
        ? 'preVerificationGas + verificationGasLimit + callGasLimit + the paymaster limits'
        : 'preVerificationGas + 3 x verificationGasLimit + callGasLimit';
    throw invalidRequest(
      `user_operation.${largestGasLimit(op)}`,
      `the op's gas limits add up to ${gas} (${limits}); a block of this network holds at most ${blockGasLimit}`,
    );
  }
  const cost = maxCostWei(op, version);
  if (cost > maxFundableWei)
    throw invalidRequest(
      'user_operation.maxFeePerGas',
      `the op may cost up to ${cost} wei (${gas} gas at maxFeePerGas ${op.maxFeePerGas}); no paymaster deposit can hold more than 2^112-1 (${maxFundableWei}) wei`,
    );
}
