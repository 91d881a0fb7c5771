import { alreadyKnown, invalidParams } from './rpc-errors.ts';
import type { QueuedOp } from './sender-queue.ts';
import type { AnyUserOperation } from './user-operation.ts';

/** A replacement must raise both fees by at least this (ERC-7562: 10%). */
const replacementBumpPercent = 110n;

/**
 * The sender's queued op that this one (of hash `hash`) replaces, the one of the same nonce, or
 * undefined; refused when it is this very op or when this one does not raise both fees by 10%. One
 * already in a bundle on its way (not mined) is replaced there too (bundle-swap.ts).
 */
export function replacedOp(op: AnyUserOperation, hash: string, queued: readonly QueuedOp[]): QueuedOp | undefined {
  const replacing = queued.find((row) => BigInt(row.nonce) === op.nonce);
  if (!replacing) return undefined;
  if (replacing.hash === hash) throw alreadyKnown(hash);
  const feeOk = op.maxFeePerGas * 100n >= BigInt(replacing.max_fee_per_gas) * replacementBumpPercent;
  const tipOk = op.maxPriorityFeePerGas * 100n >= BigInt(replacing.max_priority_fee_per_gas) * replacementBumpPercent;
  if (!feeOk || !tipOk) {
    const atLeast = (value: string) => (BigInt(value) * replacementBumpPercent + 99n) / 100n;
    throw invalidParams(
      `replacement underpriced: raise maxFeePerGas and maxPriorityFeePerGas by at least 10% over the queued operation, to at least ${atLeast(
        replacing.max_fee_per_gas,
      )} and ${atLeast(replacing.max_priority_fee_per_gas)} wei (sent ${op.maxFeePerGas} and ${op.maxPriorityFeePerGas})`,
      tipOk ? 'maxFeePerGas' : 'maxPriorityFeePerGas',
    );
  }
  return replacing;
}
