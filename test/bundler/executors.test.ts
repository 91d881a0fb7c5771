import { type Address, createWalletClient, type Hex, http, parseEther } from 'viem';
import { entryPoint07Address, toPackedUserOperation } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { acceptingAccountCode, callBundler } from './support.ts';

/** anvil's account #6: a bundler that is not this one. */
const otherBundlerKey: Hex = '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e';

describe('executors and the mempool between blocks', () => {
  let chain: IndexedChain;
  let key: string;
  let url: string;
  beforeAll(async () => {
    // Three executors, as the embedded devnet has by default (anvil's #1-#3).
    chain = await startIndexedChain({
      settings: { bundler_keys: devnetExecutorKeys.join(',') },
      chainSettings: { bundler: { enabled: true } },
    });
    await installErc4337Contracts(chain.service.anvil.url);
    key = (await chain.service.createKey()).key;
    url = `${chain.service.url}/v1/bundler/ethereum/devnet`;
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  const newAccount = async (address: Address) => {
    await chain.anvilRpc('anvil_setCode', [address, acceptingAccountCode]);
    await chain.anvilRpc('anvil_setBalance', [address, `0x${parseEther('1').toString(16)}`]);
  };
  const opOf = (sender: Address, callGasLimit = 10_000n) => ({
    sender,
    nonce: 0n,
    callData: '0x' as Hex,
    callGasLimit,
    verificationGasLimit: 100_000n,
    preVerificationGas: 60_000n,
    maxFeePerGas: 3_000_000_000n,
    maxPriorityFeePerGas: 1_000_000_000n,
    signature: '0x' as Hex,
  });
  const rpcOp = (op: ReturnType<typeof opOf>) =>
    Object.fromEntries(
      Object.entries(op).map(([field, value]) => [field, typeof value === 'bigint' ? `0x${value.toString(16)}` : value]),
    );
  const rowOf = (hash: string) =>
    chain.service.database.db.selectFrom('user_operations').selectAll().where('hash', '=', hash).executeTakeFirstOrThrow();

  it('drops a pending op whose nonce another bundler used meanwhile, with the reason', async () => {
    const sender = '0x000000000000000000000000000000000000ee01' as Address;
    await newAccount(sender);
    const manual = await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual']);
    expect(manual.result, JSON.stringify(manual.error)).toBe('ok');
    try {
      const sent = await callBundler(url, key, 'eth_sendUserOperation', [rpcOp(opOf(sender)), entryPoint07Address]);
      expect(sent.error).toBeUndefined();
      // Another bundler lands a different op with the same nonce.
      const other = createWalletClient({
        account: privateKeyToAccount(otherBundlerKey),
        chain: foundry,
        transport: http(chain.service.anvil.url),
      });
      const tx = await other.writeContract({
        address: entryPoint07Address,
        abi: entryPointV07Abi,
        functionName: 'handleOps',
        args: [[toPackedUserOperation(opOf(sender, 20_000n))], other.account.address],
        gas: 1_000_000n,
      });
      await chain.publicClient.waitForTransactionReceipt({ hash: tx });
      const dropped = await eventually(
        async () => {
          const row = await rowOf(sent.result);
          return row.status === 'failed' ? row : undefined;
        },
        { timeoutMs: 15_000, what: 'the op dropped' },
      );
      expect(dropped.reason).toMatch(/nonce 0 was used on chain/);
      const status = await callBundler(url, key, 'pimlico_getUserOperationStatus', [sent.result]);
      expect(status.result).toEqual({ status: 'rejected', transactionHash: null });
      expect((await callBundler(url, key, 'eth_getUserOperationReceipt', [sent.result])).result).toBeNull();
    } finally {
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto']);
    }
  });

  it('sends a second bundle from another executor while the first waits for its block: both land in one block', async () => {
    const first = '0x000000000000000000000000000000000000ee02' as Address;
    const second = '0x000000000000000000000000000000000000ee03' as Address;
    await newAccount(first);
    await newAccount(second);
    // Blocks only when the test mines one.
    await chain.anvilRpc('evm_setIntervalMining', [0]);
    const submitted = async (hash: string) =>
      eventually(
        async () => {
          const row = await rowOf(hash);
          return row.status === 'submitted' && row.tx_hash ? row.tx_hash : undefined;
        },
        { timeoutMs: 15_000, what: 'the bundle submitted' },
      );
    const a = await callBundler(url, key, 'eth_sendUserOperation', [rpcOp(opOf(first)), entryPoint07Address]);
    expect(a.error).toBeUndefined();
    const txA = await submitted(a.result);
    const b = await callBundler(url, key, 'eth_sendUserOperation', [rpcOp(opOf(second)), entryPoint07Address]);
    expect(b.error).toBeUndefined();
    const txB = await submitted(b.result);
    expect(txB).not.toBe(txA);
    const [bundleA, bundleB] = await Promise.all([
      chain.publicClient.getTransaction({ hash: txA as Hex }),
      chain.publicClient.getTransaction({ hash: txB as Hex }),
    ]);
    const executors = devnetExecutorKeys.map((executorKey) => privateKeyToAccount(executorKey).address.toLowerCase());
    expect(executors).toContain(bundleA.from.toLowerCase());
    expect(executors).toContain(bundleB.from.toLowerCase());
    expect(bundleB.from).not.toBe(bundleA.from);

    await chain.anvilRpc('evm_mine', []);
    const [receiptA, receiptB] = await Promise.all(
      [a.result, b.result].map((hash) =>
        eventually(async () => (await callBundler(url, key, 'eth_getUserOperationReceipt', [hash])).result ?? undefined, {
          timeoutMs: 15_000,
          what: 'the receipt',
        }),
      ),
    );
    expect(receiptA.success).toBe(true);
    expect(receiptB.success).toBe(true);
    expect(receiptA.receipt.blockNumber).toBe(receiptB.receipt.blockNumber);
  });
});
