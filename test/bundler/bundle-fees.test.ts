import { parseGwei } from 'viem';
import { describe, expect, it } from 'vitest';
import {
  baseFeeAfterFullBlocks,
  cancellationFees,
  type Fees,
  firstBundleFees,
  type PendingBlockFees,
  paysNextBlock,
  replacementFees,
} from '../../src/bundler/bundle-fees.ts';

const pending: PendingBlockFees = { head: 100n, nextBaseFee: parseGwei('10'), networkTip: parseGwei('1') };
const op = (maxFeeGwei: string, tipGwei: string): Fees => ({
  maxFeePerGas: parseGwei(maxFeeGwei),
  maxPriorityFeePerGas: parseGwei(tipGwei),
});
/** What an op (or a bundle) pays per gas in a block of `baseFee` (EIP-1559). */
function pricePerGas(fees: Fees, baseFee: bigint): bigint {
  const withTip = baseFee + fees.maxPriorityFeePerGas;
  if (fees.maxFeePerGas < withTip) return fees.maxFeePerGas;
  return withTip;
}

describe('bundle fees', () => {
  it('a first bundle bids 2 x the next base fee + the network tip when its ops pay that much', () => {
    expect(firstBundleFees([op('60', '2'), op('50', '3')], pending)).toEqual(op('21', '1'));
  });

  it('a first bundle never bids above what its cheapest op pays, nor below the next base fee', () => {
    const ops = [op('60', '2'), op('12', '0.5')];
    const fees = firstBundleFees(ops, pending);
    expect(fees).toEqual(op('12', '0.5'));
    expect(fees.maxFeePerGas).toBeGreaterThanOrEqual(pending.nextBaseFee);
    // Per gas the executor pays no more than any op pays it back, whatever the base fee turns out to be.
    for (const baseFee of [parseGwei('10'), parseGwei('11'), parseGwei('11.5')]) {
      for (const each of ops) expect(pricePerGas(fees, baseFee)).toBeLessThanOrEqual(pricePerGas(each, baseFee));
    }
  });

  it('an op below the next base fee cannot go in the next block', () => {
    expect(paysNextBlock(op('9.99', '1'), pending)).toBe(false);
    expect(paysNextBlock(op('10', '1'), pending)).toBe(true);
  });

  it('a replacement raises both fees by 10% or more, covers the new base fee, and keeps only the ops that pay it', () => {
    const previous = op('21', '1');
    const risen = { ...pending, nextBaseFee: parseGwei('12.65') };
    const ops = [op('60', '2'), op('22', '2'), op('60', '1')];
    const plan = replacementFees(previous, ops, risen);
    // The second op pays 22 < 23.1 (21 + 10%), the third a tip of 1 < 1.1: both wait for a later bundle.
    expect(plan?.paying).toEqual([0]);
    expect(plan!.fees.maxPriorityFeePerGas).toBe(parseGwei('1.1'));
    expect(plan!.fees.maxFeePerGas).toBe(parseGwei('26.4')); // 2 x 12.65 + 1.1
    expect(plan!.fees.maxFeePerGas).toBeGreaterThanOrEqual((previous.maxFeePerGas * 110n) / 100n);
  });

  it('a replacement when the base fee passed the previous bid still bids at least the new base fee', () => {
    const plan = replacementFees(op('12', '1'), [op('40', '2')], { ...pending, nextBaseFee: parseGwei('15') });
    expect(plan!.fees.maxFeePerGas).toBe(parseGwei('31.1')); // 2 x 15 + 1.1, under the op's 40
  });

  it('no replacement when no op can pay it: a cancellation takes the nonce with both fees raised', () => {
    const previous = op('20', '1');
    expect(replacementFees(previous, [op('21', '1.5'), op('30', '1')], pending)).toBeUndefined();
    const cancel = cancellationFees(previous, pending);
    expect(cancel.maxPriorityFeePerGas).toBe(parseGwei('1.1'));
    expect(cancel.maxFeePerGas).toBe(parseGwei('22'));
  });

  it('the worst base fee after n full blocks grows by an eighth a block, rounded up', () => {
    expect(baseFeeAfterFullBlocks(800n, 1)).toBe(900n);
    expect(baseFeeAfterFullBlocks(800n, 2)).toBe(1013n);
    expect(baseFeeAfterFullBlocks(parseGwei('10'), 8)).toBeGreaterThan(parseGwei('25.6'));
  });
});
