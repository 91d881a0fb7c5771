import { type Address, createPublicClient, http, type PublicClient, parseEther, RpcRequestError } from 'viem';
import { entryPoint07Address, type SmartAccount } from 'viem/account-abstraction';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import {
  bundlerClientFor,
  bundlerUrlOf,
  callBundler,
  fund,
  generousFees,
  newSimpleAccount,
  type SimpleAccount,
} from './support.ts';

/**
 * The limit of pending ops per sender holds when the sends come at once: one sender's ops on
 * different nonce keys are validated side by side, and only the admission, under a lock on the
 * sender, can count them. One anvil, three bundler networks on it, all holding their ops (manual
 * bundling): `strict` in safe mode (ERC-7562's 4), `devnet` with safe mode off and
 * `max_pending_ops_per_sender: 6`, `loose` with safe mode off and the default.
 */
describe('pending ops per sender', () => {
  let service: TestService;
  let key: string;
  let publicClient: PublicClient;
  const recipient: Address = '0x000000000000000000000000000000000000beef';

  beforeAll(async () => {
    service = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainsFor: (anvilUrl) => [
        devnetChain(anvilUrl, { bundler: { enabled: true, safe_mode: false, max_pending_ops_per_sender: 6 } }),
        { ...devnetChain(anvilUrl, { bundler: { enabled: true } }), network: 'strict' },
        { ...devnetChain(anvilUrl, { bundler: { enabled: true, safe_mode: false } }), network: 'loose' },
      ],
    });
    await installErc4337Contracts(service.anvil.url);
    key = (await service.createKey()).key;
    publicClient = createPublicClient({ chain: foundry, transport: http(service.anvil.url) }) as PublicClient;
  }, 120_000);
  afterAll(() => service?.stop());

  /** A SimpleAccount deployed by its first op (bundled at once on `network`), then that network set to hold its ops. */
  async function deployedAccount(network: string): Promise<SimpleAccount> {
    const url = bundlerUrlOf(service.url, network);
    const account = await newSimpleAccount(publicClient);
    await fund(service.anvil.url, [account.address], parseEther('10'));
    const bundlerClient = bundlerClientFor(url, key, publicClient);
    const hash = await bundlerClient.sendUserOperation({
      account,
      calls: [{ to: recipient, value: 0n }],
      ...(await generousFees(publicClient)),
    });
    await bundlerClient.waitForUserOperationReceipt({ hash, timeout: 30_000 });
    expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    return account;
  }

  /** `count` ops of the account on nonce keys `firstKey`, `firstKey + 1`, … (nonce 0 each), sent at once with viem. */
  async function sendOnKeys(network: string, account: SmartAccount, firstKey: bigint, count: number) {
    const bundlerClient = bundlerClientFor(bundlerUrlOf(service.url, network), key, publicClient);
    const fees = await generousFees(publicClient);
    const calls = [{ to: recipient, value: 1n }];
    const gas = await bundlerClient.estimateUserOperationGas({ account, calls, nonce: firstKey << 64n, ...fees });
    return Promise.allSettled(
      Array.from({ length: count }, (_, index) =>
        bundlerClient.sendUserOperation({
          account,
          calls,
          nonce: (firstKey + BigInt(index)) << 64n,
          callGasLimit: gas.callGasLimit,
          verificationGasLimit: gas.verificationGasLimit,
          preVerificationGas: gas.preVerificationGas,
          ...fees,
        }),
      ),
    );
  }

  /** The JSON-RPC errors of the refused sends. */
  function refusals(results: PromiseSettledResult<unknown>[]) {
    return results
      .filter((result): result is PromiseRejectedResult => result.status === 'rejected')
      .map((result) => {
        const rpc = (result.reason as RpcRequestError).walk?.((cause) => cause instanceof RpcRequestError);
        if (!(rpc instanceof RpcRequestError)) throw result.reason;
        return { code: rpc.code, message: rpc.details, data: rpc.data };
      });
  }

  async function pendingOf(network: string, account: SimpleAccount): Promise<number> {
    const dump = await callBundler(bundlerUrlOf(service.url, network), key, 'debug_bundler_dumpMempool', [entryPoint07Address]);
    return dump.result.filter((op: { sender: string }) => op.sender.toLowerCase() === account.address.toLowerCase()).length;
  }

  it('safe mode: 10 sends at once on 10 nonce keys, exactly 4 admitted; the 6 others are -32504 naming the sender and its 4 pending', async () => {
    const account = await deployedAccount('strict');
    const results = await sendOnKeys('strict', account, 1n, 10);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(4);
    const refused = refusals(results);
    expect(refused).toHaveLength(6);
    for (const refusal of refused) {
      expect(refusal.code).toBe(-32504);
      expect(refusal.message).toBe(
        `the sender ${account.address} already has 4 operations pending; wait for one to land (ERC-7562 allows 4 for an unstaked sender)`,
      );
      expect(refusal.data).toEqual({ sender: account.address, pending: 4, limit: 4 });
    }
    expect(await pendingOf('strict', account)).toBe(4);
  }, 90_000);

  it('safe mode: a staked sender is not held to 4 (its reputation limits it), as the bundler spec tests check', async () => {
    const strict = bundlerUrlOf(service.url, 'strict');
    expect((await callBundler(strict, key, 'debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
    const account = await deployedAccount('strict');
    // The account stakes itself (addStake must come from it): anvil sends as the account.
    const rpc = (method: string, params: unknown[]) => publicClient.request({ method, params } as never);
    await rpc('anvil_impersonateAccount', [account.address]);
    const addStake = `0x0396cb60${(86_400).toString(16).padStart(64, '0')}`;
    const stakeTx = await rpc('eth_sendTransaction', [
      { from: account.address, to: entryPoint07Address, data: addStake, value: `0x${parseEther('1').toString(16)}` },
    ]);
    await publicClient.waitForTransactionReceipt({ hash: stakeTx as `0x${string}`, timeout: 30_000 });
    await rpc('anvil_stopImpersonatingAccount', [account.address]);
    const results = await sendOnKeys('strict', account, 1n, 6);
    expect(refusals(results)).toEqual([]);
    expect(await pendingOf('strict', account)).toBe(6);
  }, 90_000);

  it("safe mode off: the network's max_pending_ops_per_sender (6) holds at once too, and the refusal names the sender's count", async () => {
    const account = await deployedAccount('devnet');
    const results = await sendOnKeys('devnet', account, 1n, 10);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(6);
    const refused = refusals(results);
    expect(refused).toHaveLength(4);
    for (const refusal of refused) {
      expect(refusal.code).toBe(-32504);
      expect(refusal.message).toBe(
        `the sender ${account.address} already has 6 operations pending; wait for one to land (this bundler allows 6 per sender: bundler.max_pending_ops_per_sender)`,
      );
    }
    expect(await pendingOf('devnet', account)).toBe(6);
  }, 90_000);

  it('safe mode off with the default: a sender may hold many more than 4 pending ops', async () => {
    const account = await deployedAccount('loose');
    const results = await sendOnKeys('loose', account, 1n, 10);
    expect(refusals(results)).toEqual([]);
    // And more after those, one at a time.
    const later = await sendOnKeys('loose', account, 11n, 1);
    expect(refusals(later)).toEqual([]);
    expect(await pendingOf('loose', account)).toBe(11);
  }, 90_000);
});
