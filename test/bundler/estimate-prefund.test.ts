import { toSimpleSmartAccount } from 'permissionless/accounts';
import { createWalletClient, http, parseEther, RpcRequestError } from 'viem';
import { entryPoint06Address, entryPoint07Address, type SmartAccount } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { deployerAccount } from '../support/contracts.ts';
import { type BundlerService, startBundlerService } from './start-bundler.ts';
import { callBundler, generousFees, newSimpleAccount } from './support.ts';

/**
 * eth_estimateUserOperationGas of an op whose sender cannot pay its prefund (no balance, no deposit,
 * no paymaster) is AA21, as Alto answers it, unless the client's state override gives it a balance.
 */
describe('estimating an op whose sender cannot prefund', () => {
  let { service, key, url, publicClient, bundlerClient } = {} as BundlerService;

  beforeAll(async () => {
    ({ service, key, url, publicClient, bundlerClient } = await startBundlerService());
  }, 120_000);
  afterAll(() => service?.stop());

  const v06Account = () =>
    toSimpleSmartAccount({
      client: publicClient,
      owner: privateKeyToAccount(generatePrivateKey()),
      entryPoint: { address: entryPoint06Address, version: '0.6' },
    });

  async function estimate(account: SmartAccount, stateOverride?: { address: `0x${string}`; balance: bigint }[], value = 0n) {
    return bundlerClient.estimateUserOperationGas({
      account,
      calls: [{ to: '0x000000000000000000000000000000000000dEaD', value }],
      ...(await generousFees(publicClient)),
      ...(stateOverride ? { stateOverride } : {}),
    });
  }

  it.each([
    ['0.7', () => newSimpleAccount(publicClient)],
    ['0.6', v06Account],
  ] as const)(
    'v%s: an unfunded account is -32500 "AA21 didn\'t pay prefund"; with a balance in the state override it is estimated',
    async (_version, create) => {
      const account = await create();
      expect(await publicClient.getBalance({ address: account.address })).toBe(0n);
      const error = await estimate(account).then(
        () => undefined,
        (failure: Error) => failure,
      );
      const rpc = (error as RpcRequestError | undefined)?.walk?.((cause) => cause instanceof RpcRequestError);
      expect(rpc, String(error)).toBeInstanceOf(RpcRequestError);
      expect((rpc as RpcRequestError).code).toBe(-32500);
      expect((rpc as RpcRequestError).details).toMatch(/^AA21 didn't pay prefund: .*has 0 wei and a deposit of 0 wei/);

      const estimated = await estimate(account, [{ address: account.address, balance: parseEther('1') }]);
      expect(estimated.verificationGasLimit).toBeGreaterThan(50_000n);
      expect(estimated.callGasLimit).toBeGreaterThan(0n);
      // Nothing was changed on chain by the override.
      expect(await publicClient.getBalance({ address: account.address })).toBe(0n);
    },
  );

  // Its call sends 1 wei it does not have, so it reverts too; the EntryPoint validates first, and the
  // answer was -32521 "reverted during simulation with reason: 0x", which hid the missing funds.
  it.each([
    ['0.7', () => newSimpleAccount(publicClient)],
    ['0.6', v06Account],
  ] as const)('v%s: an unfunded account whose call sends value is AA21 too, not a revert with 0x', async (_version, create) => {
    const account = await create();
    const error = await estimate(account, undefined, 1n).then(
      () => undefined,
      (failure: Error) => failure,
    );
    const rpc = (error as RpcRequestError | undefined)?.walk?.((cause) => cause instanceof RpcRequestError);
    expect(rpc, String(error)).toBeInstanceOf(RpcRequestError);
    expect((rpc as RpcRequestError).code).toBe(-32500);
    expect((rpc as RpcRequestError).details).toMatch(/^AA21 didn't pay prefund: .*has 0 wei and a deposit of 0 wei/);
    // Funded by the override, it is estimated.
    const estimated = await estimate(account, [{ address: account.address, balance: parseEther('1') }], 1n);
    expect(estimated.callGasLimit).toBeGreaterThan(0n);
  });

  it('a deposit in the EntryPoint pays the prefund too: the same account with one is estimated', async () => {
    const account = await newSimpleAccount(publicClient);
    const deployer = createWalletClient({ account: deployerAccount, chain: foundry, transport: http(service.anvil.url) });
    const tx = await deployer.writeContract({
      address: entryPoint07Address,
      abi: entryPointV07Abi,
      functionName: 'depositTo',
      args: [account.address],
      value: parseEther('1'),
    });
    await publicClient.waitForTransactionReceipt({ hash: tx, timeout: 30_000 });
    expect(await publicClient.getBalance({ address: account.address })).toBe(0n);
    const estimated = await estimate(account);
    expect(estimated.verificationGasLimit).toBeGreaterThan(50_000n);
  });

  it('a state override that is not one is -32602 naming the parameter', async () => {
    const account = await newSimpleAccount(publicClient);
    const { factory, factoryData } = await account.getFactoryArgs();
    const op = {
      sender: account.address,
      nonce: '0x0',
      callData: await account.encodeCalls([{ to: account.address, value: 0n }]),
      factory,
      factoryData,
      signature: await account.getStubSignature(),
    };
    const answer = await callBundler(url, key, 'eth_estimateUserOperationGas', [
      op,
      entryPoint07Address,
      { [account.address]: { balance: 'lots' } },
    ]);
    expect(answer.error).toMatchObject({ code: -32602, data: { field: 'stateOverride' } });
    expect(answer.error?.message).toBe(`stateOverride.${account.address}.balance must be a 0x hex quantity`);
    // Code of an odd number of hex digits was passed on, and the node's refusal came back as -32500.
    const odd = await callBundler(url, key, 'eth_estimateUserOperationGas', [
      op,
      entryPoint07Address,
      { [account.address]: { balance: '0xde0b6b3a7640000', code: '0x123' } },
    ]);
    expect(odd.error).toMatchObject({ code: -32602, data: { field: 'stateOverride' } });
    expect(odd.error?.message).toMatch(/code must be 0x hex bytes/);
  });
});
