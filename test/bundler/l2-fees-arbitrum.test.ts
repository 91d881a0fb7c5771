import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preVerificationGasOf } from '../../src/bundler/gas-estimation.ts';
import { parseUserOperation } from '../../src/bundler/user-operation.ts';
import { nodeInterfaceAbi, nodeInterfaceAddress } from '../../src/gas/l1-fee/l1-fee-contracts.ts';
import { installArbitrumNodeInterface } from '../support/arbitrum-node-interface.ts';
import { l1Summary, type OpNeed } from './l2-fee-accounting.ts';
import { landedBundles, type RollupDevnet, sendOpsOneBundleEach, startRollupDevnet } from './l2-fee-support.ts';

const bundles = 50;
/**
 * Nitro's L1 gas does not count toward the block's speed limit; on anvil it sits in the transaction's
 * gas limit like any gas, so the block gas limit is raised to hold it (at 0.01 gwei an L2 gas, a 50 gwei
 * L1's component of a bundle is tens of millions of gas).
 */
const anvilArgs = ['--gas-limit', '1000000000'];

/**
 * The must-show on the Arbitrum stand-in (anvil with contracts/ArbitrumNodeInterfaceStandIn.sol at 0xC8,
 * a 50 gwei L1 base fee estimate, `fee_model: arbitrum`): the L1 component is L2 gas, so each bundle
 * must pay back (gas used + the L1 gas of the signed bundle) at its price (anvil charges no L1 gas:
 * the stand-in's gasEstimateL1Component gives it), and no op's preVerificationGas more than 25% above
 * its L2 share plus that L1 gas.
 */
describe('bundler on the Arbitrum stand-in: the L1 component as gas', () => {
  let rollup: RollupDevnet;
  beforeAll(async () => {
    rollup = await startRollupDevnet('arbitrum', (url) => installArbitrumNodeInterface(url, 50_000_000_000n), {
      anvilArgs,
    });
  }, 120_000);
  afterAll(() => rollup?.stop());

  it(`${bundles} bundles: each pays (gas used + L1 gas) x price back, PVG within 25% of the need`, async () => {
    const opHashes = await sendOpsOneBundleEach(rollup, bundles);
    const landed = await landedBundles(rollup, opHashes);
    expect(landed).toHaveLength(bundles);
    const needs: OpNeed[] = [];
    let executorNet = 0n;
    for (const bundle of landed) {
      const { result } = await rollup.publicClient.simulateContract({
        address: nodeInterfaceAddress,
        abi: nodeInterfaceAbi,
        functionName: 'gasEstimateL1Component',
        args: [bundle.transaction.to!, false, bundle.transaction.input],
        blockNumber: bundle.blockNumber - 1n,
      });
      const l1Gas = result[0];
      const cost = (bundle.gasUsed + l1Gas) * bundle.effectiveGasPrice;
      expect(bundle.paidToBeneficiary, `bundle ${bundle.transaction.hash}`).toBeGreaterThanOrEqual(cost);
      // The L1 gas fits in the gas limit, as Arbitrum charges it inside the transaction.
      expect(bundle.transaction.gas).toBeGreaterThanOrEqual(bundle.gasUsed + l1Gas);
      executorNet += bundle.paidToBeneficiary - cost;
      for (const op of bundle.ops) {
        const need = preVerificationGasOf(parseUserOperation('0.7', op.op), '0.7') + l1Gas;
        needs.push({ preVerificationGas: op.preVerificationGas, need });
      }
    }
    const summary = l1Summary(needs);
    console.info(
      `arbitrum stand-in: ${landed.length} bundles, executor net after L1 gas +${executorNet} wei, PVG/need ${summary.min.toFixed(3)}..${summary.max.toFixed(3)}`,
    );
    expect(summary.min).toBeGreaterThanOrEqual(1);
    expect(summary.max).toBeLessThanOrEqual(1.25);
  }, 150_000);
});
