import { toSimpleSmartAccount } from 'permissionless/accounts';
import { type Address, type Hex, parseEther } from 'viem';
import {
  entryPoint06Address,
  entryPoint07Address,
  formatUserOperationRequest,
  type SmartAccount,
} from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryPointV06Abi, entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';
import { callBundler, fund, generousFees, newSimpleAccount, type SimpleAccount, waitForReceipts } from './support.ts';

type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
type Gas = { callGasLimit: bigint; verificationGasLimit: bigint; preVerificationGas: bigint };

describe('queued ops: a sender sends several nonces without waiting', () => {
  let { chain, key, url, publicClient, bundlerClient } = {} as BundlerChain;

  beforeAll(async () => {
    ({ chain, key, url, publicClient, bundlerClient } = await startBundlerChain());
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  async function fundedAccount(): Promise<SimpleAccount> {
    const account = await newSimpleAccount(publicClient);
    await fund(chain.service.anvil.url, [account.address], parseEther('1'));
    return account;
  }

  /** A SimpleAccount of EntryPoint v0.6 (nonce key 0), funded, not deployed. */
  async function fundedV06Account(): Promise<SmartAccount> {
    const account = await toSimpleSmartAccount({
      client: publicClient,
      owner: privateKeyToAccount(generatePrivateKey()),
      entryPoint: { address: entryPoint06Address, version: '0.6' },
      nonceKey: 0n,
    });
    await fund(chain.service.anvil.url, [account.address], parseEther('1'));
    return account;
  }

  /** The gas of the account's op of nonce `nonce` paying 1 wei to `recipient` (the deploying one when it is not deployed yet). */
  async function gasOf(account: SmartAccount, recipient: Address, nonce: bigint, fees: Fees): Promise<Gas> {
    return bundlerClient.estimateUserOperationGas({ account, calls: [{ to: recipient, value: 1n }], nonce, ...fees });
  }

  /**
   * Sends the account's ops of nonces `first`, `first + 1`, … all at once (no send waits for another's
   * answer); op i pays `values[i]` to `recipient`. Only an op of nonce 0 carries the factory.
   */
  function sendAtOnce(account: SmartAccount, recipient: Address, first: bigint, values: readonly bigint[], gas: Gas, fees: Fees) {
    return Promise.all(
      values.map((value, index) =>
        bundlerClient.sendUserOperation({
          account,
          calls: [{ to: recipient, value }],
          nonce: first + BigInt(index),
          ...gas,
          ...fees,
          ...(first + BigInt(index) === 0n ? {} : { parameters: ['fees', 'gas', 'nonce', 'signature'] as const }),
        }),
      ),
    );
  }

  /** The nonces of the sender's UserOperationEvents in chain order (block, then position in the block). */
  async function landedNonces(sender: Address, version: '0.6' | '0.7' = '0.7'): Promise<bigint[]> {
    const events = await publicClient.getContractEvents({
      address: version === '0.7' ? entryPoint07Address : entryPoint06Address,
      abi: version === '0.7' ? entryPointV07Abi : entryPointV06Abi,
      eventName: 'UserOperationEvent',
      args: { sender },
      fromBlock: 0n,
    });
    return events.map((event) => event.args.nonce!);
  }

  it('4 ops of a deployed account sent at once are all accepted and land in nonce order', async () => {
    const account = await fundedAccount();
    const fees = await generousFees(publicClient);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    // Deployed by a first op that lands.
    const [deploy] = await sendAtOnce(account, recipient, 0n, [1n], await gasOf(account, recipient, 0n, fees), fees);
    await waitForReceipts(url, key, [deploy!], 30_000);

    const hashes = await sendAtOnce(account, recipient, 1n, [2n, 3n, 4n, 5n], await gasOf(account, recipient, 1n, fees), fees);
    const receipts = await waitForReceipts(url, key, hashes, 30_000);
    expect([...receipts.values()].every((receipt) => receipt.success)).toBe(true);
    expect(await landedNonces(account.address)).toEqual([0n, 1n, 2n, 3n, 4n]);
    expect(await publicClient.getBalance({ address: recipient })).toBe(15n);
  }, 60_000);

  /** Ops 0-3 of a fresh, undeployed account sent at once (the first deploys it): all land, in nonce order. */
  async function fourUndeployedOpsLand(account: SmartAccount, version?: '0.6') {
    const fees = await generousFees(publicClient);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const hashes = await sendAtOnce(account, recipient, 0n, [1n, 2n, 3n, 4n], await gasOf(account, recipient, 0n, fees), fees);
    const receipts = await waitForReceipts(url, key, hashes, 30_000);
    expect([...receipts.values()].every((receipt) => receipt.success)).toBe(true);
    expect(await landedNonces(account.address, version)).toEqual([0n, 1n, 2n, 3n]);
    expect(await publicClient.getBalance({ address: recipient })).toBe(10n);
  }

  it('4 ops of an account not deployed yet (the first deploys it) sent at once all land in nonce order', async () => {
    await fourUndeployedOpsLand(await fundedAccount());
  }, 60_000);

  it('v0.6: 4 ops of an account not deployed yet sent at once all land in nonce order', async () => {
    await fourUndeployedOpsLand(await fundedV06Account(), '0.6');
  }, 60_000);

  it('an op queued behind the deploying op is validated in the state that op leaves: a bad signature is refused', async () => {
    const account = await fundedAccount();
    const fees = await generousFees(publicClient);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const gas = await gasOf(account, recipient, 0n, fees);
    await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual']);
    try {
      await sendAtOnce(account, recipient, 0n, [1n], gas, fees);
      const later = await bundlerClient.prepareUserOperation({
        account,
        calls: [{ to: recipient, value: 2n }],
        nonce: 1n,
        ...gas,
        ...fees,
        parameters: ['fees', 'gas', 'nonce'],
      });
      const signature = await account.signUserOperation(later as never);
      // The owner's signature with one bit of s flipped: it recovers another address.
      const flipped = `${signature.slice(0, 128)}${(Number.parseInt(signature.slice(128, 130), 16) ^ 1).toString(16).padStart(2, '0')}${signature.slice(130)}`;
      const answer = await callBundler(url, key, 'eth_sendUserOperation', [
        formatUserOperationRequest({ ...later, signature: flipped as Hex }),
        entryPoint07Address,
      ]);
      expect(answer.error?.code).toBe(-32507);
      expect(answer.error?.message).toMatch(/^AA24/);
      // Signed right, it is accepted (validated, not waved through).
      const good = await callBundler(url, key, 'eth_sendUserOperation', [
        formatUserOperationRequest({ ...later, signature }),
        entryPoint07Address,
      ]);
      expect(good.error).toBeUndefined();
    } finally {
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto']);
    }
  }, 60_000);

  it("a sender's consecutive queued ops and its ops under other nonce keys share one bundle, in nonce order", async () => {
    const account = await fundedAccount();
    const fees = await generousFees(publicClient);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const [deploy] = await sendAtOnce(account, recipient, 0n, [1n], await gasOf(account, recipient, 0n, fees), fees);
    await waitForReceipts(url, key, [deploy!], 30_000);
    const gas = await gasOf(account, recipient, 1n, fees);
    // A new key's first nonce writes a fresh storage slot: its own estimate.
    const keyedGas = await gasOf(account, recipient, 5n << 64n, fees);
    await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual']);
    let hashes: Hex[];
    try {
      // Key 0: nonces 1 and 2 queued; keys 5 and 7 (as viem's time-based keys): their first nonce each.
      // Four pending ops in all: ERC-7562's limit for an unstaked sender.
      const queued = await sendAtOnce(account, recipient, 1n, [2n, 3n], gas, fees);
      const otherKeys = await Promise.all(
        [5n, 7n].map((nonceKey) => sendAtOnce(account, recipient, nonceKey << 64n, [10n], keyedGas, fees)),
      );
      hashes = [...queued, ...otherKeys.flat()];
      const bundle = await callBundler(url, key, 'debug_bundler_sendBundleNow');
      expect(bundle.result).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto']);
    }
    const receipts = await waitForReceipts(url, key, hashes, 30_000);
    expect(new Set([...receipts.values()].map((receipt) => receipt.receipt.transactionHash)).size).toBe(1);
    expect([...receipts.values()].every((receipt) => receipt.success)).toBe(true);
    const nonces = await landedNonces(account.address);
    const keyZero = nonces.filter((nonce) => nonce >> 64n === 0n);
    expect(keyZero).toEqual([0n, 1n, 2n]);
    expect(nonces).toHaveLength(5);
    expect(await publicClient.getBalance({ address: recipient })).toBe(1n + 2n + 3n + 20n);
  }, 60_000);

  it('estimates nonce N+3 while N to N+2 are pending, of an account their first op deploys', async () => {
    const account = await fundedAccount();
    const fees = await generousFees(publicClient);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual']);
    let hashes: Hex[];
    try {
      hashes = await sendAtOnce(account, recipient, 0n, [1n, 2n, 3n], await gasOf(account, recipient, 0n, fees), fees);
      const fourth = await bundlerClient.prepareUserOperation({
        account,
        calls: [{ to: recipient, value: 4n }],
        nonce: 3n,
        callGasLimit: 0n,
        verificationGasLimit: 0n,
        preVerificationGas: 0n,
        ...fees,
        parameters: ['fees', 'gas', 'nonce', 'signature'],
      });
      const estimate = await callBundler(url, key, 'eth_estimateUserOperationGas', [
        formatUserOperationRequest({ ...fourth, signature: await account.getStubSignature() }),
        entryPoint07Address,
      ]);
      expect(estimate.error).toBeUndefined();
      // Validated as a deployed SimpleAccount's (tens of thousands, not the deployment's hundreds); the
      // call runs the account's code (a value transfer: 9,000 and more), not an empty account's.
      const verification = BigInt(estimate.result.verificationGasLimit);
      const call = BigInt(estimate.result.callGasLimit);
      expect(verification).toBeGreaterThan(20_000n);
      expect(verification).toBeLessThan(200_000n);
      expect(call).toBeGreaterThan(9_000n);
      expect(estimate.result.paymasterVerificationGasLimit).toBe('0x0');
      expect(estimate.result.paymasterPostOpGasLimit).toBe('0x0');
      const gas = {
        callGasLimit: call,
        verificationGasLimit: verification,
        preVerificationGas: BigInt(estimate.result.preVerificationGas),
      };
      hashes.push(...(await sendAtOnce(account, recipient, 3n, [4n], gas, fees)));
    } finally {
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto']);
    }
    const receipts = await waitForReceipts(url, key, hashes, 30_000);
    expect([...receipts.values()].every((receipt) => receipt.success)).toBe(true);
    expect(await landedNonces(account.address)).toEqual([0n, 1n, 2n, 3n]);
    expect(await publicClient.getBalance({ address: recipient })).toBe(10n);
  }, 60_000);

  it("4 pending ops of an unstaked sender are accepted, a 5th is refused (ERC-7562's SAME_SENDER_MEMPOOL_COUNT)", async () => {
    const account = await fundedAccount();
    const fees = await generousFees(publicClient);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const gas = await gasOf(account, recipient, 0n, fees);
    await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual']);
    try {
      const hashes = await sendAtOnce(account, recipient, 0n, [1n, 2n, 3n, 4n], gas, fees);
      expect(new Set(hashes).size).toBe(4);
      const fifth = await sendAtOnce(account, recipient, 4n, [5n], gas, fees).catch((error: Error) => error);
      expect(fifth).toBeInstanceOf(Error);
      expect(String((fifth as Error).message)).toMatch(/already has 4 operations pending/);
    } finally {
      await callBundler(url, key, 'debug_bundler_clearState');
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto']);
    }
  }, 60_000);

  it('a nonce that leaves a gap is refused as too high after a short wait', async () => {
    const account = await fundedAccount();
    const fees = await generousFees(publicClient);
    const [deploy] = await sendAtOnce(account, account.address, 0n, [1n], await gasOf(account, account.address, 0n, fees), fees);
    await waitForReceipts(url, key, [deploy!], 30_000);
    const started = Date.now();
    const answer = await sendAtOnce(
      account,
      account.address,
      3n,
      [1n],
      await gasOf(account, account.address, 1n, fees),
      fees,
    ).catch((error: Error) => error);
    expect(answer).toBeInstanceOf(Error);
    expect(String((answer as Error).message)).toMatch(/nonce too high: 3; the next for this key is 1/);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 30_000);
});
