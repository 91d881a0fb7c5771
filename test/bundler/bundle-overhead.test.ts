import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { landedBundles, type RollupDevnet, sendOpsOneBundleEach, startRollupDevnet } from './l2-fee-support.ts';

/** Bundles of one op each on a plain EIP-1559 chain (anvil's base fee 0: the op and the bundle pay one price). */
const bundles = 12;

describe('a bundle pays for itself: the ops it carries pay back the whole transaction', () => {
  let chain: RollupDevnet;
  beforeAll(async () => {
    chain = await startRollupDevnet('eip1559', async () => {});
  }, 120_000);
  afterAll(async () => {
    await chain?.stop();
  });

  it.each(['0.7', '0.8'] as const)(
    `v%s, ${bundles} single-op bundles: each op's actualGasCost covers its bundle's gasUsed x effectiveGasPrice`,
    async (entryPointVersion) => {
      const landed = await landedBundles(
        chain,
        await sendOpsOneBundleEach(chain, bundles, { opsPerAccount: 4, entryPointVersion }),
      );
      expect(landed).toHaveLength(bundles);
      const gaps: bigint[] = [];
      const short: string[] = [];
      for (const bundle of landed) {
        const cost = bundle.gasUsed * bundle.effectiveGasPrice;
        gaps.push(bundle.ops.reduce((sum, op) => sum + op.actualGasUsed, 0n) - bundle.gasUsed);
        short.push(
          ...(bundle.paidToBeneficiary < cost ? [`${bundle.transaction.hash}: paid ${bundle.paidToBeneficiary} < ${cost}`] : []),
        );
      }
      console.info(`bundle overhead: ops' actualGasUsed - bundle gasUsed per bundle: ${gaps.join(', ')}`);
      expect(short).toEqual([]);
    },
    150_000,
  );
});
