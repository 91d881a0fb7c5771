import { type Address, type Hex, pad, parseEther, parseGwei, toHex } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxBundleReverts } from '../../src/bundler/bundle-status.ts';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { devAccount, type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { acceptingAccountCode, bareUserOperation, callBundler, executorAddress } from './support.ts';

/**
 * An account that validates only while its storage slot 0 is zero; a call from anyone but the
 * EntryPoint sets slot 0 to its first word. In a block ordered [set 1 (high tip), the bundle, set 0
 * (low tip, another sender)] its op passes simulation and the bundle's estimate, then makes the bundle
 * revert, and the mempool sees it valid again after the block.
 */
const setter = '60003560005500'; // slot 0 = calldata[0:32], STOP
const reverter = '5b60006000fd'; // JUMPDEST, REVERT(0, 0)
// CALLER == EntryPoint ? (SLOAD(0) != 0 ? revert : accept) : set
const poisonAccountCode: Hex = `0x3373${entryPoint07Address.slice(2)}14602157${setter}5b600054604157${acceptingAccountCode.slice(2)}${reverter}`;
/** anvil's #5: it resets the slot after the bundle (the dev account's own transactions would run together). */
const resetter = privateKeyToAccount('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba');
const poison = '0x000000000000000000000000000000000000b00b' as Address;
const innocent = '0x000000000000000000000000000000000000900d' as Address;

describe('a poison op (its bundles revert on chain) is isolated and dropped; the ops beside it land', () => {
  let chain: IndexedChain;
  let key: string;
  let url: string;
  beforeAll(async () => {
    chain = await startIndexedChain({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      // The parity check reads NUMBER, which ERC-7562 bans: only an unsafe-mode bundler takes such an op.
      chainSettings: { bundler: { enabled: true, safe_mode: false } },
    });
    await installErc4337Contracts(chain.service.anvil.url);
    await chain.anvilRpc('anvil_setCode', [poison, poisonAccountCode]);
    await chain.anvilRpc('anvil_setCode', [innocent, acceptingAccountCode]);
    for (const account of [poison, innocent])
      await chain.anvilRpc('anvil_setBalance', [account, `0x${parseEther('1').toString(16)}`]);
    key = (await chain.service.createKey()).key;
    url = `${chain.service.url}/v1/bundler/ethereum/devnet`;
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  const send = async (sender: Address) => {
    const base = bareUserOperation(sender);
    const estimate = await callBundler(url, key, 'eth_estimateUserOperationGas', [base, entryPoint07Address]);
    expect(estimate.error, `estimate for ${sender}`).toBeUndefined();
    const sent = await callBundler(url, key, 'eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
    expect(sent.error, `send for ${sender}`).toBeUndefined();
    return sent.result as Hex;
  };

  /** Sets the poison account's slot 0, with a tip that orders the transaction before (high) or after (low) the bundle. */
  const setSlot = async (value: bigint, tip: bigint) => {
    const account = value === 0n ? resetter : devAccount;
    const nonce = await chain.publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' });
    return chain.wallet.sendTransaction({
      account,
      to: poison,
      data: pad(toHex(value)),
      gas: 60_000n,
      nonce,
      // anvil orders by the fee cap as well: the reset bids just the base fee, below the bundle.
      maxFeePerGas: value === 0n ? ((await chain.publicClient.getBlock()).baseFeePerGas ?? 0n) + tip : parseGwei('100'),
      maxPriorityFeePerGas: tip,
    });
  };

  /** Resolves once the executor's bundle waits in anvil's pool (bounded: 10 s). */
  const waitForBundleInPool = () =>
    eventually(
      async () => {
        const pool = (await chain.anvilRpc('txpool_content')) as { pending: Record<string, unknown> };
        return Object.keys(pool.pending).some((from) => from.toLowerCase() === executorAddress.toLowerCase()) ? true : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: 'a bundle in the pool' },
    );

  it(`the innocent op lands; the poison op is dropped with its reason after ${maxBundleReverts} bundles that reverted`, async () => {
    expect(await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual'])).toMatchObject({ result: 'ok' });
    const poisonHash = await send(poison);
    const innocentHash = await send(innocent);
    const before = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
    await chain.anvilRpc('evm_setAutomine', [false]);
    try {
      // Each round: a bundle, the slot set around it in its block, the block mined, the outcome recorded.
      for (let round = 0; round < 8; round++) {
        // sendBundleNow answers once its bundle is mined: the block is made around it first.
        const answer = callBundler(url, key, 'debug_bundler_sendBundleNow');
        const sent = await Promise.race([answer.then(() => false), waitForBundleInPool().then(() => true)]);
        if (!sent) break; // nothing was pending
        await setSlot(1n, parseGwei('10'));
        await setSlot(0n, 1n);
        await chain.anvilRpc('evm_mine');
        await answer;
      }
    } finally {
      await chain.anvilRpc('evm_setAutomine', [true]);
    }
    const innocentReceipt = (await callBundler(url, key, 'eth_getUserOperationReceipt', [innocentHash])).result;
    expect(innocentReceipt?.success).toBe(true);
    expect((await callBundler(url, key, 'eth_getUserOperationReceipt', [poisonHash])).result).toBeNull();
    const row = await chain.service.database.db
      .selectFrom('user_operations')
      .select(['status', 'reason', 'bundle_reverts'])
      .where('hash', '=', poisonHash)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', bundle_reverts: maxBundleReverts });
    expect(row.reason).toMatch(new RegExp(`^dropped after ${maxBundleReverts} bundles carrying it reverted on chain`));
    expect((await callBundler(url, key, 'pimlico_getUserOperationStatus', [poisonHash])).result).toMatchObject({
      status: 'rejected',
    });

    // From the chain: the executor's bundles since, exactly that many reverted.
    const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
    let reverted = 0;
    for (let number = before + 1n; number <= head; number++) {
      const block = await chain.publicClient.getBlock({ blockNumber: number, includeTransactions: true });
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== executorAddress.toLowerCase()) continue;
        if ((await chain.publicClient.getTransactionReceipt({ hash: tx.hash })).status === 'reverted') reverted++;
      }
    }
    expect(reverted).toBe(maxBundleReverts);
  }, 120_000);
});
