import { type Address, encodeFunctionData, type PublicClient, parseAbi, parseEther } from 'viem';
import { entryPoint06Abi, entryPoint06Address, getUserOperationHash, toSmartAccount } from 'viem/account-abstraction';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegationDesignator } from '../../src/bundler/eip7702-authorization.ts';
import { erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { type BundlerService, startBundlerService } from './start-bundler.ts';
import { bundlerUrlOf, callBundler, fund, generousFees } from './support.ts';

const implementation = erc4337Addresses.v06.simple7702Account;
const accountAbi = parseAbi([
  'function execute(address dest, uint256 value, bytes func)',
  'function executeBatch(address[] dest, bytes[] func)',
]);

/**
 * An EOA as a v0.6 account through viem's own toSmartAccount: the authorization delegates it to
 * Simple7702AccountV06, which checks v0.6's userOpHash signed as a personal message by the EOA's key.
 */
function toV06Eoa7702Account(client: PublicClient, owner: PrivateKeyAccount) {
  return toSmartAccount({
    client,
    authorization: { account: owner, address: implementation },
    entryPoint: { abi: entryPoint06Abi, address: entryPoint06Address, version: '0.6' },
    async encodeCalls(calls) {
      if (calls.length === 1)
        return encodeFunctionData({
          abi: accountAbi,
          functionName: 'execute',
          args: [calls[0]!.to, calls[0]!.value ?? 0n, calls[0]!.data ?? '0x'],
        });
      if (calls.some((call) => (call.value ?? 0n) > 0n)) throw new Error("v0.6's executeBatch sends no value");
      return encodeFunctionData({
        abi: accountAbi,
        functionName: 'executeBatch',
        args: [calls.map((call) => call.to), calls.map((call) => call.data ?? '0x')],
      });
    },
    async getAddress() {
      return owner.address;
    },
    async getFactoryArgs() {
      return { factory: undefined, factoryData: undefined };
    },
    async getStubSignature() {
      return '0xfffffffffffffffffffffffffffffff0000000000000000000000000000000007aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1c';
    },
    async signMessage({ message }) {
      return owner.signMessage({ message });
    },
    async signTypedData() {
      throw new Error('not used here');
    },
    async signUserOperation({ chainId = foundry.id, ...userOperation }) {
      const hash = getUserOperationHash({
        chainId,
        entryPointAddress: entryPoint06Address,
        entryPointVersion: '0.6',
        userOperation: { ...userOperation, sender: owner.address },
      });
      return owner.signMessage({ message: { raw: hash } });
    },
  });
}

describe('EIP-7702 on EntryPoint v0.6 (eip7702Auth, as Alto serves it)', () => {
  let { service, key, publicClient, bundlerClient } = {} as BundlerService;

  beforeAll(async () => {
    ({ service, key, publicClient, bundlerClient } = await startBundlerService());
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  it('an EOA never delegated sends a v0.6 op with eip7702Auth: a type-4 bundle delegates it and runs the call; the next op needs none', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const recipient: Address = privateKeyToAccount(generatePrivateKey()).address;
    await fund(service.anvil.url, [owner.address], parseEther('1'));
    const account = await toV06Eoa7702Account(publicClient, owner);

    // viem does not sign the authorization itself: the first op carries the EOA's, as with v0.7 and v0.8.
    const authorization = await owner.signAuthorization({ address: implementation, chainId: foundry.id, nonce: 0 });
    const first = await bundlerClient.sendUserOperation({
      account,
      authorization,
      calls: [{ to: recipient, value: 1000n }],
      ...(await generousFees(publicClient)),
    });
    const landed = await bundlerClient.waitForUserOperationReceipt({ hash: first, timeout: 30_000 });
    expect(landed.success).toBe(true);
    expect(landed.entryPoint.toLowerCase()).toBe(entryPoint06Address.toLowerCase());
    expect(await publicClient.getCode({ address: owner.address })).toBe(delegationDesignator(implementation));
    expect(await publicClient.getBalance({ address: recipient })).toBe(1000n);
    const bundle = await publicClient.getTransaction({ hash: landed.receipt.transactionHash });
    expect(bundle.type).toBe('eip7702');
    expect(bundle.authorizationList?.[0]).toMatchObject({ address: implementation.toLowerCase(), nonce: 0 });
    const byHash = await callBundler(bundlerUrlOf(service.url), key, 'eth_getUserOperationByHash', [first]);
    expect(byHash.result.userOperation.eip7702Auth).toMatchObject({ address: implementation, nonce: '0x0' });

    // Delegated now: viem sends no authorization, and the bundle is a plain one.
    const second = await bundlerClient.sendUserOperation({
      account,
      calls: [{ to: recipient, value: 2000n }],
      ...(await generousFees(publicClient)),
    });
    const secondLanded = await bundlerClient.waitForUserOperationReceipt({ hash: second, timeout: 30_000 });
    expect(secondLanded.success).toBe(true);
    expect((await publicClient.getTransaction({ hash: secondLanded.receipt.transactionHash })).type).toBe('eip1559');
    expect(await publicClient.getBalance({ address: recipient })).toBe(3000n);
  }, 60_000);
});
