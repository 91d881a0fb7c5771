import type { Hex } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import { type L1Cost, noL1Cost } from '../gas/l1-fee/l1-cost.ts';
import type { L1FeeOracle } from '../gas/l1-fee/l1-fee-oracle.ts';
import { preVerificationGasOf } from './gas-estimation.ts';
import { opOfRow } from './handle-ops-call.ts';
import { opGasPrice } from './pre-verification-gas.ts';
import type { EntryPointVersion } from './user-operation.ts';

/** What the L1 check of a bundle reads: the oracle, the ops' version, the next base fee, and the bundle as it would go. */
export interface BundleL1Check {
  readonly oracle: L1FeeOracle;
  readonly version: EntryPointVersion;
  readonly nextBaseFee: bigint;
  /** The bundle of these rows, signed as it would be sent: its bytes are what the L1 fee is charged on. */
  readonly signed: (rows: readonly UserOperationRow[]) => Promise<{ to: `0x${string}`; data: Hex; serialized: Hex }>;
}

/**
 * The ops of a bundle that pay for its L1 part, before it is sent: the oracle's L1 cost of the signed
 * bundle (OP-stack: wei; Arbitrum: gas) against what the ops' preVerificationGas holds beyond their
 * L2 share, at what each pays per gas. When the sum falls short (the L1 fee rose, the L2 price fell),
 * the ops whose budget is below their share (by their size in the calldata) are held back and the
 * rest checked again. `held`: ops to leave waiting until the next block.
 */
export async function rowsPayingL1Fee(
  check: BundleL1Check,
  rows: readonly UserOperationRow[],
): Promise<{ paying: UserOperationRow[]; held: UserOperationRow[]; cost: L1Cost }> {
  if (!check.oracle.charged) return { paying: [...rows], held: [], cost: noL1Cost };
  let paying = [...rows];
  while (paying.length > 0) {
    const cost = await check.oracle.costOf(await check.signed(paying));
    const budgets = paying.map((row) => l1BudgetOf(row, check, cost));
    const need = cost.model === 'op-stack' ? cost.feeWei : cost.model === 'arbitrum' ? cost.l1Gas : 0n;
    if (sum(budgets) >= need) return { paying, held: rows.filter((row) => !paying.includes(row)), cost };
    const sizes = paying.map(sizeOf);
    const total = sum(sizes);
    const covering = paying.filter((_, index) => budgets[index]! * total >= need * sizes[index]!);
    // Each op covering its share would cover the sum: at least one falls short and is dropped.
    paying = covering.length < paying.length ? covering : paying.slice(0, -1);
  }
  return { paying: [], held: [...rows], cost: noL1Cost };
}

/**
 * What the op's preVerificationGas holds beyond its L2 share (preVerificationGasOf): in wei at its
 * price for a fee charged in wei (OP-stack), in gas for one charged as gas (Arbitrum).
 */
function l1BudgetOf(row: UserOperationRow, check: BundleL1Check, cost: L1Cost): bigint {
  const op = opOfRow(row);
  const beyond = op.preVerificationGas - preVerificationGasOf(op, check.version);
  if (beyond <= 0n) return 0n;
  return cost.model === 'op-stack' ? beyond * opGasPrice(op, check.nextBaseFee) : beyond;
}

/** An op's size in the bundle's calldata, roughly: its variable-length fields (hex characters). */
function sizeOf(row: UserOperationRow): bigint {
  const op = row.op as Record<string, unknown>;
  let size = 600n;
  for (const field of ['callData', 'initCode', 'factoryData', 'paymasterAndData', 'paymasterData', 'signature'])
    if (typeof op[field] === 'string') size += BigInt((op[field] as string).length);
  return size;
}

const sum = (values: readonly bigint[]) => values.reduce((total, value) => total + value, 0n);

/**
 * Ops held back by the L1 check, until the network's head moves (the L1 fee and the base fee are read
 * again then) or `maxHoldMs` passed (a chain that mines only on demand may see no new head for long,
 * while its L1 fee can still change): the bundle loop does not pick them again before.
 */
export function createL1Holds(options: { maxHoldMs?: number; now?: () => number } = {}) {
  const { maxHoldMs = 10_000, now = () => performance.now() } = options;
  const heldAt = new Map<string, { head: number; at: number }>();
  return {
    hold(rows: readonly UserOperationRow[], head: number) {
      // Entries of ops that were never picked again (dropped, bundled elsewhere) go in one sweep.
      if (heldAt.size > 10_000) heldAt.clear();
      for (const row of rows) heldAt.set(row.hash, { head, at: now() });
    },
    isHeld(row: Pick<UserOperationRow, 'hash'>, head: number): boolean {
      const held = heldAt.get(row.hash);
      if (held === undefined) return false;
      if (held.head === head && now() - held.at < maxHoldMs) return true;
      heldAt.delete(row.hash);
      return false;
    },
  };
}

export type L1Holds = ReturnType<typeof createL1Holds>;
