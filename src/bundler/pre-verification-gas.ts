import { type Address, concat, getAddress, type Hex, keccak256, slice, toHex } from 'viem';
import { l1GasAtPrice, withPercent } from '../gas/l1-fee/l1-cost.ts';
import type { L1FeeOracle } from '../gas/l1-fee/l1-fee-oracle.ts';
import { authorizationOf } from './eip7702-delegation.ts';
import { preVerificationGasOf } from './gas-estimation.ts';
import { handleOpsData, unsignedBundleQuery } from './handle-ops-transaction.ts';
import type { AnyUserOperation, EntryPointVersion } from './user-operation.ts';

/**
 * Headroom on the L1 part of an estimated preVerificationGas. The L1 fee moves with the L1 base fee
 * and blob base fee between the estimate and the bundle, and the L2 price the op pays may fall with
 * the L2 base fee; 15% is what an L1 base fee can rise in about one L1 block (12.5%) plus a margin,
 * and keeps an op's preVerificationGas within 25% of what it needs. Sends are checked without it.
 */
export const l1HeadroomPercent = 115n;

/** An op, its EntryPoint and chain: what the L1 part of its preVerificationGas is computed for. */
export interface L1PricedOp {
  readonly op: AnyUserOperation;
  readonly version: EntryPointVersion;
  readonly entryPoint: Address;
  readonly chainId: number;
}

/** What the EntryPoint charges the op per gas once the next block's base fee is known: min(maxFee, base + tip). Pure. */
export function opGasPrice(op: Pick<AnyUserOperation, 'maxFeePerGas' | 'maxPriorityFeePerGas'>, nextBaseFee: bigint): bigint {
  const withTip = nextBaseFee + op.maxPriorityFeePerGas;
  if (op.maxFeePerGas < withTip) return op.maxFeePerGas;
  return withTip;
}

/**
 * The L1 part of the op's preVerificationGas: the L1 cost of a bundle of the op alone (the worst
 * case, its whole envelope its own), as L2 gas at `gasPrice` (what the EntryPoint will charge the op).
 * The op is taken at its widest (gas fields and fees at full width, its signature as random bytes
 * of its length, at least 65), so a stub-signed estimate is not below the signed op's need.
 */
export async function l1PreVerificationGas(oracle: L1FeeOracle, priced: L1PricedOp, gasPrice: bigint): Promise<bigint> {
  if (!oracle.charged) return 0n;
  const data = handleOpsData(priced.version, [widestOf(priced.op)], beneficiaryStandIn);
  const authorization = authorizationOf(priced.op);
  const query = unsignedBundleQuery(priced.entryPoint, data, {
    chainId: priced.chainId,
    nonce: 0xffffff,
    gas: 0xffffffn,
    maxFeePerGas: 0xffffffffffn,
    maxPriorityFeePerGas: 0xffffffffffn,
    authorizationList: authorization ? [authorization] : undefined,
  });
  return l1GasAtPrice(await oracle.costOf(query), gasPrice);
}

/** The preVerificationGas an op must have to be admitted: its share of the bundle's L2 gas plus its L1 part, no headroom. */
export async function requiredPreVerificationGas(oracle: L1FeeOracle, priced: L1PricedOp, gasPrice: bigint): Promise<bigint> {
  return preVerificationGasOf(priced.op, priced.version) + (await l1PreVerificationGas(oracle, priced, gasPrice));
}

/** The preVerificationGas eth_estimateUserOperationGas answers: the required one with headroom on its L1 part. */
export async function estimatedPreVerificationGas(oracle: L1FeeOracle, priced: L1PricedOp, gasPrice: bigint): Promise<bigint> {
  const l1 = await l1PreVerificationGas(oracle, priced, gasPrice);
  return preVerificationGasOf(priced.op, priced.version) + withPercent(l1, l1HeadroomPercent);
}

/** A fixed beneficiary of random-looking bytes (an executor's address compresses as badly). */
const beneficiaryStandIn = getAddress(slice(keccak256(toHex('blockyard bundle beneficiary')), 12));

/** Random-looking bytes of the given length, the same every time (a signature's entropy). */
function randomLooking(length: number): Hex {
  const words: Hex[] = [keccak256(toHex('blockyard stub signature'))];
  while (words.length * 32 < length) words.push(keccak256(words.at(-1)!));
  return slice(concat(words), 0, length);
}

function widestOf(op: AnyUserOperation): AnyUserOperation {
  const signatureBytes = Math.max(65, (op.signature.length - 2) / 2);
  return {
    ...op,
    signature: randomLooking(signatureBytes),
    nonce: op.nonce | 0xffffffffffffffffn,
    callGasLimit: 0xffffffn,
    verificationGasLimit: 0xffffffn,
    preVerificationGas: 0xffffffn,
    maxFeePerGas: 0xffffffffffn,
    maxPriorityFeePerGas: 0xffffffffffn,
    ...('paymaster' in op && op.paymaster
      ? { paymasterVerificationGasLimit: 0xffffffn, paymasterPostOpGasLimit: 0xffffffn }
      : {}),
  } as AnyUserOperation;
}
