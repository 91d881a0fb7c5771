import type { PublicClient } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';

/** EIP-1559 fees of one transaction or one user operation. */
export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** A mempool row's fees. */
export const feesOfRow = (row: Pick<UserOperationRow, 'max_fee_per_gas' | 'max_priority_fee_per_gas'>): Fees => ({
  maxFeePerGas: BigInt(row.max_fee_per_gas),
  maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
});

/** What the next block asks: its base fee (null before London) and the node's suggested tip. */
export interface PendingBlockFees {
  /** The latest block's number: a bundle sent now targets the one after it. */
  head: bigint;
  nextBaseFee: bigint;
  networkTip: bigint;
}

/** A node without eth_maxPriorityFeePerGas: 1 gwei, what anvil and most L1 wallets default to. */
const fallbackTip = 1_000_000_000n;
/** Nodes refuse a replacement (same sender and nonce) that does not raise both fees by 10% (geth, reth, anvil). */
const replacementPercent = 110n;

/**
 * The pending block's base fee and the network's tip. The base fee comes from eth_feeHistory, whose
 * last entry is the node's own computation of the next block's base fee (right for chains whose
 * EIP-1559 parameters differ from mainnet's, which a local formula would not be). `minTip`: the
 * chain's floor for tips (Polygon PoS nodes refuse a transaction below it), under which the tip never goes.
 */
export async function readPendingBlockFees(client: PublicClient, minTip = 0n): Promise<PendingBlockFees> {
  const [history, nodeTip] = await Promise.all([
    client.getFeeHistory({ blockCount: 1, blockTag: 'latest', rewardPercentiles: [] }),
    client.estimateMaxPriorityFeePerGas().catch(() => fallbackTip),
  ]);
  return { head: history.oldestBlock, nextBaseFee: history.baseFeePerGas.at(-1) ?? 0n, networkTip: maxOf(nodeTip, minTip) };
}

/** The worst base fee `blocks` full blocks after one of `baseFee` (each raises it by an eighth, EIP-1559's maximum). */
export function baseFeeAfterFullBlocks(baseFee: bigint, blocks: number): bigint {
  let fee = baseFee;
  for (let block = 0; block < blocks; block++) fee += fee / 8n + (fee % 8n === 0n ? 0n : 1n);
  return fee;
}

/** Math.min and Math.max take no bigints. */
function minOf(values: readonly bigint[]): bigint {
  let min = values[0]!;
  for (const value of values) if (value < min) min = value;
  return min;
}
function maxOf(...values: bigint[]): bigint {
  let max = values[0]!;
  for (const value of values) if (value > max) max = value;
  return max;
}
const raisedByTenth = (value: bigint) => (value * replacementPercent + 99n) / 100n;

/** An op can go in the next block only if its maxFeePerGas covers that block's base fee; otherwise it waits. */
export const paysNextBlock = (op: Fees, pending: Pick<PendingBlockFees, 'nextBaseFee'>) => op.maxFeePerGas >= pending.nextBaseFee;

/**
 * A bundle's first fees. The tip is the network's, never above the ops' lowest tip; maxFeePerGas gives
 * the base fee room to double (2 x the next block's + the tip, as wallets do), never above the ops'
 * lowest maxFeePerGas. Per gas, the executor then pays min(maxFee, base + tip), at most what each op
 * pays it back (min(its maxFee, base + its tip)): no bundle costs it more than the ops pay. Every op
 * must pay the next block's base fee (`paysNextBlock`), so the bundle does too.
 */
export function firstBundleFees(ops: readonly Fees[], pending: PendingBlockFees): Fees {
  const tip = minOf([pending.networkTip, ...ops.map((op) => op.maxPriorityFeePerGas)]);
  const maxFeePerGas = minOf([pending.nextBaseFee * 2n + tip, ...ops.map((op) => op.maxFeePerGas)]);
  return { maxFeePerGas, maxPriorityFeePerGas: tip };
}

/**
 * The fees of a replacement of a bundle not mined (same nonce): both raised by at least 10% (nodes
 * refuse less), maxFeePerGas at least the next block's base fee, and as firstBundleFees otherwise.
 * Only the ops that can pay those fees stay in it (`paying`, their indexes); the others go back to the
 * mempool. Undefined when none can: the bundle is then cancelled (`cancellationFees`).
 */
export function replacementFees(
  previous: Fees,
  ops: readonly Fees[],
  pending: PendingBlockFees,
): { fees: Fees; paying: number[] } | undefined {
  const floorTip = raisedByTenth(previous.maxPriorityFeePerGas);
  const floorMaxFee = maxOf(raisedByTenth(previous.maxFeePerGas), pending.nextBaseFee);
  const paying = ops.flatMap((op, index) =>
    op.maxPriorityFeePerGas >= floorTip && op.maxFeePerGas >= floorMaxFee ? [index] : [],
  );
  if (paying.length === 0) return undefined;
  const kept = paying.map((index) => ops[index]!);
  const tip = maxOf(floorTip, minOf([pending.networkTip, ...kept.map((op) => op.maxPriorityFeePerGas)]));
  const maxFeePerGas = maxOf(floorMaxFee, minOf([pending.nextBaseFee * 2n + tip, ...kept.map((op) => op.maxFeePerGas)]));
  return { fees: { maxFeePerGas, maxPriorityFeePerGas: tip }, paying };
}

/** Fees of an empty transaction that takes a stuck bundle's nonce when no op can pay for its replacement. */
export function cancellationFees(previous: Fees, pending: PendingBlockFees): Fees {
  const tip = raisedByTenth(previous.maxPriorityFeePerGas);
  return { maxFeePerGas: maxOf(raisedByTenth(previous.maxFeePerGas), pending.nextBaseFee * 2n + tip), maxPriorityFeePerGas: tip };
}
