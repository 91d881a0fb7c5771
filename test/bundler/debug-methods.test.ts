import { type Address, type Hex, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';
import { bareUserOperation } from './support.ts';

/** Reads TIMESTAMP in validation (refused in safe mode), pays its prefund, accepts any call. */
const timestampAccountCode: Hex = '0x42506000600060006000604435335af150600060005260206000f3';
const sender = '0x000000000000000000000000000000000000a77f' as Address;

describe('ERC-7769 debug methods, with safe mode off', () => {
  let { chain, bundler } = {} as BundlerChain;
  beforeAll(async () => {
    ({ chain, bundler } = await startBundlerChain({
      bundler: { safe_mode: false },
      accounts: [{ address: sender, code: timestampAccountCode }],
    }));
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  it('manual mode holds ops in the mempool until sendBundleNow; clearState empties it', async () => {
    expect((await bundler('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    const base = bareUserOperation(sender);
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    const op = { ...base, ...estimate.result };
    // Safe mode off: the TIMESTAMP in validation is not checked.
    const sent = await bundler('eth_sendUserOperation', [op, entryPoint07Address]);
    expect(sent.error).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const mempool = await bundler('debug_bundler_dumpMempool', [entryPoint07Address]);
    expect(mempool.result).toHaveLength(1);
    expect(mempool.result[0].sender.toLowerCase()).toBe(sender);
    expect((await bundler('pimlico_getUserOperationStatus', [sent.result])).result).toMatchObject({ status: 'not_submitted' });

    const bundled = await bundler('debug_bundler_sendBundleNow', []);
    expect(bundled.result).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await bundler('eth_getUserOperationReceipt', [sent.result]);
    expect(receipt.result).toMatchObject({
      userOpHash: sent.result,
      success: true,
      receipt: { transactionHash: bundled.result },
    });
    expect((await bundler('debug_bundler_dumpMempool', [entryPoint07Address])).result).toEqual([]);

    const next = await bundler('eth_sendUserOperation', [{ ...op, nonce: '0x1' }, entryPoint07Address]);
    expect(next.error, next.error?.message).toBeUndefined();
    expect((await bundler('debug_bundler_clearState', [])).result).toBe('ok');
    expect((await bundler('debug_bundler_dumpMempool', [entryPoint07Address])).result).toEqual([]);
    expect((await bundler('debug_bundler_setBundlingMode', ['sometimes'])).error?.code).toBe(-32602);
    expect((await bundler('debug_bundler_addUserOps', [])).error?.code).toBe(-32601);

    // Reputation: counted, but with safe mode off nobody is throttled or banned for it
    // (test/bundler/reputation-safe-mode.test.ts has both sides).
    expect((await bundler('debug_bundler_dumpReputation', [entryPoint07Address])).result).toEqual([]);
    const factory = erc4337Addresses.v07.factory;
    expect(
      (
        await bundler('debug_bundler_setReputation', [
          [{ address: factory, opsSeen: '0x3e8', opsIncluded: '0x0' }],
          entryPoint07Address,
        ])
      ).result,
    ).toBe('ok');
    expect((await bundler('debug_bundler_dumpReputation', [entryPoint07Address])).result).toEqual([
      { address: factory.toLowerCase(), opsSeen: '0x3e8', opsIncluded: '0x0', status: 'ok' },
    ]);
    const deploying = {
      ...op,
      sender: '0x000000000000000000000000000000000000beef',
      factory,
      factoryData: '0x',
      preVerificationGas: '0xf4240',
    };
    // Refused by the simulation (the factory deploys no such sender), not by reputation.
    const notBanned = await bundler('eth_sendUserOperation', [deploying, entryPoint07Address]);
    expect(notBanned.error?.code).not.toBe(-32504);
    expect(notBanned.error?.message).not.toMatch(/banned|throttled/);
    expect((await bundler('debug_bundler_clearState', [])).result).toBe('ok');
    expect((await bundler('debug_bundler_dumpReputation', [entryPoint07Address])).result).toEqual([]);
    expect((await bundler('debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
  });

  it('replaces a pending op only at fees at least 10% higher; the replacement is what gets bundled', async () => {
    expect((await bundler('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    // A nonce key of its own: sequence 0 is the next on chain whatever the other tests sent.
    const base = bareUserOperation(sender, `0x${(7n << 64n).toString(16)}`);
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    const first = { ...base, ...estimate.result };
    const raised = (percent: bigint) => ({
      ...first,
      maxFeePerGas: `0x${((BigInt(first.maxFeePerGas) * (100n + percent)) / 100n).toString(16)}`,
      maxPriorityFeePerGas: `0x${((BigInt(first.maxPriorityFeePerGas) * (100n + percent)) / 100n).toString(16)}`,
    });
    const queued = await bundler('eth_sendUserOperation', [first, entryPoint07Address]);
    expect(queued.error, queued.error?.message).toBeUndefined();

    const underpriced = await bundler('eth_sendUserOperation', [raised(5n), entryPoint07Address]);
    expect(underpriced.error?.code).toBe(-32602);
    expect(underpriced.error?.message).toMatch(
      /^replacement underpriced: raise maxFeePerGas and maxPriorityFeePerGas by at least 10%/,
    );

    const replacement = await bundler('eth_sendUserOperation', [raised(10n), entryPoint07Address]);
    expect(replacement.error, replacement.error?.message).toBeUndefined();
    expect(replacement.result).not.toBe(queued.result);
    const mempool = await bundler('debug_bundler_dumpMempool', [entryPoint07Address]);
    expect(mempool.result).toHaveLength(1);
    expect(BigInt(mempool.result[0].maxFeePerGas)).toBe(BigInt(raised(10n).maxFeePerGas));

    const bundled = await bundler('debug_bundler_sendBundleNow', []);
    expect(bundled.result).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await bundler('eth_getUserOperationReceipt', [replacement.result])).result).toMatchObject({
      success: true,
      receipt: { transactionHash: bundled.result },
    });
    expect((await bundler('eth_getUserOperationReceipt', [queued.result])).result).toBeNull();
    expect((await bundler('debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
  });

  /** A paymaster whose validatePaymasterUserOp answers (empty context, validationData 0) for any op, with 1 ETH deposited. */
  async function installPaymaster(paymaster: Address) {
    await chain.anvilRpc('anvil_setCode', [paymaster, '0x60406000526000602052600060405260606000f3']);
    const [funder] = (await chain.anvilRpc('eth_accounts')) as Address[];
    const depositTo = `0xb760faf9${paymaster.slice(2).padStart(64, '0')}`;
    await chain.anvilRpc('eth_sendTransaction', [
      { from: funder, to: entryPoint07Address, data: depositTo, value: `0x${parseEther('1').toString(16)}` },
    ]);
    await chain.anvilRpc('anvil_mine', ['0x1']);
  }
  const paymasterFields = (paymaster: Address) => ({
    paymaster,
    paymasterVerificationGasLimit: '0x186a0',
    paymasterPostOpGasLimit: '0x0',
    paymasterData: '0x',
  });
  const seenOf = async (address: string) =>
    (
      (await bundler('debug_bundler_dumpReputation', [entryPoint07Address])).result as { address: string; opsSeen: string }[]
    ).find((entry) => entry.address.toLowerCase() === address)?.opsSeen;

  it("takes back a paymaster's opsSeen when its op's account fails by itself as the bundle is built (ERC-7562 EREP-015)", async () => {
    expect((await bundler('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    const paymaster = '0x000000000000000000000000000000000000fac3' as Address;
    await installPaymaster(paymaster);
    const account = '0x000000000000000000000000000000000000a781' as Address;
    await chain.anvilRpc('anvil_setCode', [account, timestampAccountCode]);
    await bundler('debug_bundler_setReputation', [[{ address: paymaster, opsSeen: 5, opsIncluded: 2 }], entryPoint07Address]);
    const base = { ...bareUserOperation(account), ...paymasterFields(paymaster) };
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    expect(estimate.error, estimate.error?.message).toBeUndefined();
    const sent = await bundler('eth_sendUserOperation', [
      { ...base, ...estimate.result, ...paymasterFields(paymaster) },
      entryPoint07Address,
    ]);
    expect(sent.error, sent.error?.message).toBeUndefined();
    expect(await seenOf(paymaster)).toBe('0x6');
    // The account now reverts in validateUserOp (AA23): not the paymaster's doing.
    await chain.anvilRpc('anvil_setCode', [account, '0x60006000fd']);
    await bundler('debug_bundler_sendBundleNow', []);
    const row = await chain.service.database.db
      .selectFrom('user_operations')
      .select(['status', 'reason'])
      .where('hash', '=', String(sent.result))
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('failed');
    expect(row.reason).toMatch(/^AA23/);
    expect(await seenOf(paymaster)).toBe('0x5');
    expect((await bundler('debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
  });

  it("moves a paymaster's opsSeen with a replacement: the replaced op no longer counts (as the bundler spec tests check)", async () => {
    expect((await bundler('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    const paymaster = '0x000000000000000000000000000000000000face' as Address;
    await installPaymaster(paymaster);
    const base = {
      ...bareUserOperation(sender, `0x${(11n << 64n).toString(16)}`),
      paymaster,
      paymasterVerificationGasLimit: '0x186a0',
      paymasterPostOpGasLimit: '0x0',
      paymasterData: '0x',
    };
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    expect(estimate.error, estimate.error?.message).toBeUndefined();
    const first = { ...base, ...estimate.result, paymasterVerificationGasLimit: '0x186a0', paymasterPostOpGasLimit: '0x0' };
    const seen = () => seenOf(paymaster);
    expect((await bundler('eth_sendUserOperation', [first, entryPoint07Address])).error).toBeUndefined();
    expect(await seen()).toBe('0x1');
    const raised = {
      ...first,
      maxFeePerGas: `0x${((BigInt(first.maxFeePerGas) * 12n) / 10n).toString(16)}`,
      maxPriorityFeePerGas: `0x${((BigInt(first.maxPriorityFeePerGas) * 12n) / 10n).toString(16)}`,
    };
    const replaced = await bundler('eth_sendUserOperation', [raised, entryPoint07Address]);
    expect(replaced.error, replaced.error?.message).toBeUndefined();
    expect(await seen()).toBe('0x1');
    // Replaced by one without the paymaster: it counts for nobody.
    const withoutPaymaster = {
      ...raised,
      paymaster: undefined,
      paymasterVerificationGasLimit: undefined,
      paymasterPostOpGasLimit: undefined,
      paymasterData: undefined,
      maxFeePerGas: `0x${((BigInt(raised.maxFeePerGas) * 12n) / 10n).toString(16)}`,
      maxPriorityFeePerGas: `0x${((BigInt(raised.maxPriorityFeePerGas) * 12n) / 10n).toString(16)}`,
    };
    expect((await bundler('eth_sendUserOperation', [withoutPaymaster, entryPoint07Address])).error).toBeUndefined();
    expect(await seen()).toBe('0x0');
    expect((await bundler('debug_bundler_clearState', [])).result).toBe('ok');
    expect((await bundler('debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
  });

  it("clears the mempool and the reputations apart, and tells an entity's stake (getStakeStatus, as the bundler spec tests ask it)", async () => {
    expect((await bundler('debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    const base = bareUserOperation(sender, `0x${(9n << 64n).toString(16)}`);
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    const sent = await bundler('eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
    expect(sent.error, sent.error?.message).toBeUndefined();
    const factory = erc4337Addresses.v07.factory;
    await bundler('debug_bundler_setReputation', [[{ address: factory, opsSeen: 5, opsIncluded: 1 }], entryPoint07Address]);

    expect((await bundler('debug_bundler_clearMempool', [])).result).toBe('ok');
    expect((await bundler('debug_bundler_dumpMempool', [entryPoint07Address])).result).toEqual([]);
    expect((await bundler('debug_bundler_dumpReputation', [entryPoint07Address])).result).toHaveLength(1);
    expect((await bundler('debug_bundler_clearReputation', [])).result).toBe('ok');
    expect((await bundler('debug_bundler_dumpReputation', [entryPoint07Address])).result).toEqual([]);

    expect((await bundler('debug_bundler_getStakeStatus', [sender, entryPoint07Address])).result).toEqual({
      stakeInfo: { addr: sender, stake: '0', unstakeDelaySec: '0' },
      isStaked: false,
    });
    const [staker] = (await chain.anvilRpc('eth_accounts')) as Address[];
    const addStake = `0x0396cb60${(86_400).toString(16).padStart(64, '0')}`; // addStake(uint32)
    const stakeTx = await chain.anvilRpc('eth_sendTransaction', [
      { from: staker, to: entryPoint07Address, data: addStake, value: `0x${parseEther('1').toString(16)}` },
    ]);
    await chain.anvilRpc('anvil_mine', ['0x1']);
    expect(await chain.anvilRpc('eth_getTransactionReceipt', [stakeTx])).toMatchObject({ status: '0x1' });
    expect((await bundler('debug_bundler_getStakeStatus', [staker, entryPoint07Address])).result).toEqual({
      stakeInfo: { addr: staker, stake: '1000000000000000000', unstakeDelaySec: '86400' },
      isStaked: true,
    });
    expect((await bundler('debug_bundler_getStakeStatus', ['0x12', entryPoint07Address])).error?.code).toBe(-32602);
    expect((await bundler('debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
  });
});
