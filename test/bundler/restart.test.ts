import { createPublicClient, type Hex, http, type PublicClient, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { startTestService, type TestService } from '../support/service.ts';
import {
  bundlerClientFor,
  bundlerUrlOf,
  callBundler,
  fund,
  generousFees,
  newSimpleAccount,
  type SimpleAccount,
  sendConsecutiveOps,
  waitForReceipts,
} from './support.ts';

/**
 * One deployment, two kinds of process on one database and anvil: the first serves the API (and
 * indexes) without the bundler role, so ops sent to it wait in the mempool; a process with only the
 * bundler role, started later, bundles them.
 */
describe('ops queued while no process has the bundler role', () => {
  let api: IndexedChain;
  let key: string;
  let url: string;
  let publicClient: PublicClient;
  let bundlerProcess: TestService | undefined;

  beforeAll(async () => {
    api = await startIndexedChain({
      roles: 'api,indexer',
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainSettings: { bundler: { enabled: true } },
    });
    await installErc4337Contracts(api.service.anvil.url);
    key = (await api.service.createKey()).key;
    url = bundlerUrlOf(api.service.url);
    publicClient = createPublicClient({ chain: foundry, transport: http(api.service.anvil.url) }) as PublicClient;
  }, 120_000);
  afterEach(async () => {
    await bundlerProcess?.stop();
    bundlerProcess = undefined;
  });
  afterAll(async () => {
    await api?.service.stop();
  });

  /** A second process of the deployment with only the bundler role (same chains, same executor key). */
  const startBundlerProcess = () =>
    startTestService({
      sharing: api.service,
      roles: 'bundler',
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chains: api.chainsConfig,
      logLevel: process.env.TEST_LOG_LEVEL,
    });

  async function fundedAccounts(count: number): Promise<SimpleAccount[]> {
    const accounts = await Promise.all(Array.from({ length: count }, () => newSimpleAccount(publicClient)));
    await fund(
      api.service.anvil.url,
      accounts.map((account) => account.address),
      parseEther('1'),
    );
    return accounts;
  }

  const statusOf = async (hash: Hex) => (await callBundler(url, key, 'pimlico_getUserOperationStatus', [hash])).result;
  const onChainNonce = (sender: Hex) =>
    publicClient.readContract({
      address: entryPoint07Address,
      abi: entryPointV07Abi,
      functionName: 'getNonce',
      args: [sender, 0n],
    });

  /** Nothing is bundled while no bundler runs: a few of its poll intervals (250 ms) pass with every op still queued. */
  async function expectNothingLands(hashes: Hex[], senders: SimpleAccount[]) {
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    for (const hash of hashes) expect(await statusOf(hash)).toEqual({ status: 'not_submitted', transactionHash: null });
    for (const sender of senders) {
      expect(await onChainNonce(sender.address)).toBe(0n);
      expect(await publicClient.getCode({ address: sender.address })).toBeUndefined();
    }
  }

  it('land, none lost, once a bundler process starts; by-hash answers before and after inclusion', async () => {
    const bundlerClient = bundlerClientFor(url, key, publicClient);
    const accounts = await fundedAccounts(6);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const fees = await generousFees(publicClient);
    const hashes = await Promise.all(
      accounts.map((account, index) =>
        bundlerClient.sendUserOperation({ account, calls: [{ to: recipient, value: BigInt(index + 1) }], nonce: 0n, ...fees }),
      ),
    );
    expect(new Set(hashes).size).toBe(accounts.length);
    for (const [index, hash] of hashes.entries()) {
      const before = await callBundler(url, key, 'eth_getUserOperationByHash', [hash]);
      expect(before.result).toMatchObject({
        userOperation: { sender: accounts[index]!.address, nonce: '0x0' },
        entryPoint: entryPoint07Address,
        transactionHash: null,
        blockHash: null,
        blockNumber: null,
      });
      expect((await callBundler(url, key, 'eth_getUserOperationReceipt', [hash])).result).toBeNull();
    }
    await expectNothingLands(hashes, accounts);

    bundlerProcess = await startBundlerProcess();
    // Receipts from the first process's endpoint: what the bundler process recorded, read from the shared database.
    const receipts = await waitForReceipts(url, key, hashes, 30_000);
    for (const [index, hash] of hashes.entries()) {
      const receipt = receipts.get(hash)!;
      expect(receipt).toMatchObject({ userOpHash: hash, success: true, nonce: '0x0' });
      expect(receipt.sender.toLowerCase()).toBe(accounts[index]!.address.toLowerCase());
      const after = await callBundler(url, key, 'eth_getUserOperationByHash', [hash]);
      expect(after.result).toMatchObject({
        userOperation: { sender: accounts[index]!.address, nonce: '0x0' },
        entryPoint: entryPoint07Address,
        transactionHash: receipt.receipt.transactionHash,
        blockHash: receipt.receipt.blockHash,
        blockNumber: receipt.receipt.blockNumber,
      });
      expect(await statusOf(hash)).toEqual({ status: 'included', transactionHash: receipt.receipt.transactionHash });
    }
    // 1 + 2 + … + 6 wei: every op executed once.
    expect(await publicClient.getBalance({ address: recipient })).toBe(21n);
    const rows = await api.service.database.db.selectFrom('user_operations').select(['hash', 'status']).execute();
    expect(rows.map((row) => row.status)).toEqual(hashes.map(() => 'included'));
  }, 90_000);

  it("a sender's consecutive ops queued with no bundler running land in nonce order when one starts again", async () => {
    // The previous test's bundler process was stopped: none runs now.
    const bundlerClient = bundlerClientFor(url, key, publicClient);
    const accounts = await fundedAccounts(2);
    const recipients = accounts.map(() => privateKeyToAccount(generatePrivateKey()).address);
    const fees = await generousFees(publicClient);
    const values = [1n, 2n, 3n];
    const perSender = await Promise.all(
      accounts.map((account, index) => sendConsecutiveOps(bundlerClient, account, recipients[index]!, values, fees)),
    );
    const hashes = perSender.flat();
    expect(new Set(hashes).size).toBe(6);
    await expectNothingLands(hashes, accounts);

    bundlerProcess = await startBundlerProcess();
    const receipts = await waitForReceipts(url, key, hashes, 30_000);
    for (const [index, own] of perSender.entries()) {
      const landed = own.map((hash) => receipts.get(hash)!);
      expect(landed.map((receipt) => receipt.success)).toEqual([true, true, true]);
      expect(landed.map((receipt) => receipt.nonce)).toEqual(['0x0', '0x1', '0x2']);
      expect(await onChainNonce(accounts[index]!.address)).toBe(3n);
      expect(await publicClient.getBalance({ address: recipients[index]! })).toBe(6n);
    }
  }, 90_000);
});
