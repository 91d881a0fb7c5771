import type { PublicClient } from 'viem';
import { readPendingBlockFees } from './bundle-fees.ts';
import { opGasPrice } from './pre-verification-gas.ts';
import type { AnyUserOperation } from './user-operation.ts';

/**
 * The L2 price an op's L1 part is converted at when it is estimated: what the EntryPoint will charge
 * it at the next block's base fee (min(maxFee, base + tip)), or, for an op estimated before its fees
 * are set, the next base fee plus the network's tip (a quote's tips are higher, so the gas is not short).
 */
export async function estimationGasPrice(client: PublicClient, op: AnyUserOperation, minTip = 0n): Promise<bigint> {
  const pending = await readPendingBlockFees(client, minTip);
  if (op.maxFeePerGas > 0n) return opGasPrice(op, pending.nextBaseFee);
  const price = pending.nextBaseFee + pending.networkTip;
  return price > 0n ? price : 1n;
}
