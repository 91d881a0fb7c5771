import { parseEther } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RollupDevnet, startRollupDevnet } from './l2-fee-support.ts';
import { bundlerClientFor, bundlerUrlOf, callBundler, fund, newSimpleAccount } from './support.ts';

/** Polygon PoS's floor (its preset's value is the same kind of number): nodes refuse a lower tip. */
const minTip = 30_000_000_000n;

/**
 * A chain with a minimum priority fee (Polygon PoS; anvil's own tip suggestion is 1 gwei, as a
 * node that ignores the floor would answer): the bundler quotes, admits and bids at or above it, so no
 * bundle goes out with a tip the chain's nodes refuse.
 */
describe('bundler on a chain with a minimum priority fee', () => {
  let chain: RollupDevnet;
  beforeAll(async () => {
    chain = await startRollupDevnet('polygon', async () => {}, { chainSettings: { min_priority_fee_wei: minTip.toString() } });
  }, 120_000);
  afterAll(() => chain?.stop());

  it('pimlico_getUserOperationGasPrice quotes every tier at or above the minimum', async () => {
    const { result } = await callBundler(bundlerUrlOf(chain.service.url), chain.key, 'pimlico_getUserOperationGasPrice');
    for (const tier of ['slow', 'standard', 'fast']) {
      expect(BigInt(result[tier].maxPriorityFeePerGas), tier).toBeGreaterThanOrEqual(minTip);
      expect(BigInt(result[tier].maxFeePerGas), tier).toBeGreaterThanOrEqual(BigInt(result[tier].maxPriorityFeePerGas));
    }
  });

  it('refuses an op whose tip is under the minimum (-32602 naming maxPriorityFeePerGas), bundles one at it with a tip at or above it', async () => {
    const url = bundlerUrlOf(chain.service.url);
    const bundler = bundlerClientFor(url, chain.key, chain.publicClient);
    const account = await newSimpleAccount(chain.publicClient);
    await fund(chain.anvil.url, [account.address], parseEther('1'));
    const calls = [{ to: '0x000000000000000000000000000000000000dEaD' as const, value: 1_000n }];

    const low = { maxFeePerGas: 100_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n };
    const refused = await bundler.sendUserOperation({ account, calls, ...low }).then(
      () => undefined,
      (error: unknown) => error as { details?: string; cause?: { code?: number } },
    );
    expect(refused?.details).toMatch(/maxPriorityFeePerGas 1000000000 is below this chain's minimum priority fee 30000000000/);

    const hash = await bundler.sendUserOperation({
      account,
      calls,
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: minTip,
    });
    const receipt = await bundler.waitForUserOperationReceipt({ hash, timeout: 30_000, pollingInterval: 100 });
    expect(receipt.success).toBe(true);
    const bundle = await chain.publicClient.getTransaction({ hash: receipt.receipt.transactionHash });
    expect(bundle.maxPriorityFeePerGas).toBeGreaterThanOrEqual(minTip);
  }, 60_000);
});
