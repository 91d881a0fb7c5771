import { parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preVerificationGasOf } from '../../src/bundler/gas-estimation.ts';
import { parseUserOperation } from '../../src/bundler/user-operation.ts';
import { gasPriceOracleAbi, gasPriceOracleAddress } from '../../src/gas/l1-fee/l1-fee-contracts.ts';
import { busyL1, installOpPredeploys } from '../support/op-predeploys.ts';
import { l1Summary, type OpNeed } from './l2-fee-accounting.ts';
import { l2Fees, landedBundles, type RollupDevnet, sendOpsOneBundleEach, startRollupDevnet } from './l2-fee-support.ts';
import { bundlerClientFor, bundlerUrlOf, callBundler, fund, newSimpleAccount } from './support.ts';

const bundles = 50;

/**
 * The must-show of the real-networks issue on an OP-style devnet (anvil with the real GasPriceOracle and
 * L1Block, Ecotone and Fjord on, a 60 gwei L1 base fee, `fee_model: op-stack`): 50 bundles, each of
 * which pays the executor back its L2 gas and the L1 fee of the signed bundle transaction (anvil does not
 * charge it: GasPriceOracle.getL1Fee computes it), and no op's preVerificationGas more than 25% above
 * what its share needed.
 */
describe('bundler on an OP-stack devnet: the L1 data fee', () => {
  let rollup: RollupDevnet;
  beforeAll(async () => {
    rollup = await startRollupDevnet('op-stack', (url) => installOpPredeploys(url, busyL1));
  }, 120_000);
  afterAll(() => rollup?.stop());

  const getL1Fee = (serialized: `0x${string}`, blockNumber: bigint) =>
    rollup.publicClient.readContract({
      address: gasPriceOracleAddress,
      abi: gasPriceOracleAbi,
      functionName: 'getL1Fee',
      args: [serialized],
      blockNumber,
    });

  it(`${bundles} bundles under a 60 gwei L1: each pays gas + getL1Fee(signed bundle) back, PVG within 25% of the need`, async () => {
    const opHashes = await sendOpsOneBundleEach(rollup, bundles);
    const landed = await landedBundles(rollup, opHashes);
    expect(landed).toHaveLength(bundles);
    const needs: OpNeed[] = [];
    let executorNet = 0n;
    let l1Fees = 0n;
    for (const bundle of landed) {
      // The L1 fee as the chain charges it, at the state the bundle ran on.
      const l1Fee = await getL1Fee(bundle.signedSerialized, bundle.blockNumber - 1n);
      const cost = bundle.gasUsed * bundle.effectiveGasPrice + l1Fee;
      expect(bundle.paidToBeneficiary, `bundle ${bundle.transaction.hash}`).toBeGreaterThanOrEqual(cost);
      executorNet += bundle.paidToBeneficiary - cost;
      l1Fees += l1Fee;
      for (const op of bundle.ops) {
        const price = op.actualGasCost / op.actualGasUsed;
        const l2Share = preVerificationGasOf(parseUserOperation('0.7', op.op), '0.7');
        // One op per bundle: its share is the whole L1 fee.
        const need = l2Share + (l1Fee + price - 1n) / price;
        needs.push({ preVerificationGas: op.preVerificationGas, need });
      }
    }
    const summary = l1Summary(needs);
    console.info(
      `op-stack: ${landed.length} bundles, L1 fees ${l1Fees} wei, executor net after L1 fees +${executorNet} wei, PVG/need ${summary.min.toFixed(3)}..${summary.max.toFixed(3)}`,
    );
    expect(summary.min).toBeGreaterThanOrEqual(1);
    expect(summary.max).toBeLessThanOrEqual(1.25);
  }, 150_000);

  it('eth_estimateUserOperationGas holds the L1 part; a send whose preVerificationGas leaves it out is -32602 naming preVerificationGas', async () => {
    const account = await newSimpleAccount(rollup.publicClient);
    await fund(rollup.anvil.url, [account.address], parseEther('1'));
    const url = bundlerUrlOf(rollup.service.url);
    const op = {
      sender: account.address,
      nonce: '0x0',
      ...(await account.getFactoryArgs()),
      callData: await account.encodeCalls([{ to: '0x000000000000000000000000000000000000dEaD', value: 0n }]),
      signature: await account.getStubSignature(),
      maxFeePerGas: '0x1312d00',
      maxPriorityFeePerGas: '0x989680',
    };
    const estimate = await callBundler(url, rollup.key, 'eth_estimateUserOperationGas', [op, entryPoint07Address]);
    const l2Share = preVerificationGasOf(
      parseUserOperation('0.7', { ...op, callGasLimit: '0x0', verificationGasLimit: '0x0', preVerificationGas: '0x0' }),
      '0.7',
    );
    // At 0.01 gwei a gas, a 60 gwei L1 makes the L1 part several times the L2 share.
    expect(BigInt(estimate.result.preVerificationGas)).toBeGreaterThan(3n * l2Share);
    const sent = await callBundler(url, rollup.key, 'eth_sendUserOperation', [
      {
        ...op,
        callGasLimit: estimate.result.callGasLimit,
        verificationGasLimit: estimate.result.verificationGasLimit,
        preVerificationGas: `0x${l2Share.toString(16)}`,
        signature: await account.signUserOperation({
          ...op,
          nonce: 0n,
          callGasLimit: BigInt(estimate.result.callGasLimit),
          verificationGasLimit: BigInt(estimate.result.verificationGasLimit),
          preVerificationGas: l2Share,
          maxFeePerGas: BigInt(op.maxFeePerGas),
          maxPriorityFeePerGas: BigInt(op.maxPriorityFeePerGas),
        } as never),
      },
      entryPoint07Address,
    ]);
    expect(sent.error?.code, sent.error?.message).toBe(-32602);
    expect(sent.error?.message).toMatch(
      /^preVerificationGas \d+ is below the \d+ this operation needs, \d+ of it for its share of the bundle's L1 data fee/,
    );
  }, 60_000);

  it('a bundle of several ops pays gas + getL1Fee(signed bundle) back too (each op priced for a bundle of its own)', async () => {
    const url = bundlerUrlOf(rollup.service.url);
    const bundler = bundlerClientFor(url, rollup.key, rollup.publicClient);
    expect((await callBundler(url, rollup.key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    try {
      const accounts = await Promise.all(Array.from({ length: 5 }, () => newSimpleAccount(rollup.publicClient)));
      await fund(
        rollup.anvil.url,
        accounts.map((account) => account.address),
        parseEther('1'),
      );
      const hashes: `0x${string}`[] = [];
      for (const [index, account] of accounts.entries()) {
        const calls = [{ to: '0x000000000000000000000000000000000000dEaD' as const, value: 2_000n + BigInt(index) }];
        hashes.push(await bundler.sendUserOperation({ account, calls, ...l2Fees }));
      }
      const sent = await callBundler(url, rollup.key, 'debug_bundler_sendBundleNow', []);
      expect(sent.result).toMatch(/^0x[0-9a-f]{64}$/);
      for (const hash of hashes) await bundler.waitForUserOperationReceipt({ hash, timeout: 20_000, pollingInterval: 100 });
      const landed = await landedBundles(rollup, hashes);
      expect(landed.map((bundle) => bundle.ops.length)).toEqual([5]);
      const [bundle] = landed;
      const l1Fee = await getL1Fee(bundle!.signedSerialized, bundle!.blockNumber - 1n);
      expect(bundle!.paidToBeneficiary).toBeGreaterThanOrEqual(bundle!.gasUsed * bundle!.effectiveGasPrice + l1Fee);
    } finally {
      await callBundler(url, rollup.key, 'debug_bundler_setBundlingMode', ['auto']);
    }
  }, 60_000);
});
