import { toSimpleSmartAccount } from 'permissionless/accounts';
import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  pad,
  parseEther,
  toEventSelector,
  zeroAddress,
} from 'viem';
import { createBundlerClient, entryPoint06Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyUserOperation } from '../../src/bundler/user-operation.ts';
import { compileContracts } from '../../src/contracts/compile.ts';
import { type SponsoredFields, sponsoredPaymasterFields, stubPaymasterFields } from '../../src/paymaster/paymaster-data.ts';
import { devnetPaymasters, newEmptyAccount, type SponsoredChain, startSponsoredChain } from '../paymaster/support.ts';
import { bundlerClientFor, bundlerUrlOf, callBundler, fund, generousFees, newSimpleAccount } from './support.ts';

const transferTopic = toEventSelector('Transfer(address,address,uint256)');
/** Reverts with the 4 bytes 0xdeadbeef: PUSH4 deadbeef, PUSH1 224, SHL, PUSH1 0, MSTORE, REVERT(0, 4). */
const revertingCode: Hex = '0x63deadbeef60e01b60005260046000fd';
const reverter = '0x000000000000000000000000000000000000dead' as Address;

interface RpcLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  logIndex: Hex;
  transactionHash: Hex;
}

/**
 * eth_getUserOperationReceipt as ERC-7769 says, on one bundle of four v0.7 ops (manual bundling, then
 * debug_bundler_sendBundleNow): each op's `logs` are only the logs it emitted, `reason` only on a
 * failure, `paymaster` the one that paid, `receipt` the bundle's transaction receipt.
 */
describe('user operation receipts', () => {
  let sponsored: SponsoredChain;
  let url: string;
  let key: string;
  let publicClient: PublicClient;
  let token: Address;
  // biome-ignore lint/suspicious/noExplicitAny: receipts are inspected freely
  const receipts = new Map<string, any>();
  let hashes: { transfer: Hex; mint: Hex; reverting: Hex; sponsoredMint: Hex };
  let bundle: Hex;
  let mint: (to: Address) => { to: Address; value: bigint; data: Hex };

  beforeAll(async () => {
    sponsored = await startSponsoredChain();
    ({ key } = sponsored);
    url = bundlerUrlOf(sponsored.chain.service.url);
    publicClient = createPublicClient({ chain: foundry, transport: http(sponsored.chain.service.anvil.url) }) as PublicClient;
    const { DemoToken } = await compileContracts();
    const deployed = await sponsored.chain.wallet.deployContract({
      abi: DemoToken.abi,
      bytecode: DemoToken.bytecode,
      args: ['Receipt Token', 'RCT', 18],
    });
    token = (await publicClient.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
    mint = (to: Address) =>
      ({
        to: token,
        value: 0n,
        data: encodeFunctionData({ abi: DemoToken.abi, functionName: 'mint', args: [to, 5n] }),
      }) as const;

    expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    const bundler = bundlerClientFor(url, key, publicClient);
    const fees = await generousFees(publicClient);
    const [a, b, c] = await Promise.all([
      newSimpleAccount(publicClient),
      newSimpleAccount(publicClient),
      newSimpleAccount(publicClient),
    ]);
    await fund(sponsored.chain.service.anvil.url, [a.address, b.address, c.address], parseEther('1'));
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    // Each op deploys its account: the bundle's validation phase holds their AccountDeployed and prefund deposits.
    const transfer = await bundler.sendUserOperation({ account: a, calls: [{ to: recipient, value: 1000n }], ...fees });
    const minted = await bundler.sendUserOperation({ account: b, calls: [mint(recipient)], ...fees });
    // Nothing at the target while it is validated and sent: the call reverts only in the bundle.
    const reverting = await bundler.sendUserOperation({ account: c, calls: [{ to: reverter, value: 0n }], ...fees });

    const setup = sponsored.setups['0.7']!;
    const forViem = ({ version: _version, ...fields }: SponsoredFields) => fields;
    const sponsoring = createBundlerClient({
      client: publicClient,
      chain: foundry,
      transport: http(url, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0 }),
      userOperation: { estimateFeesPerGas: () => generousFees(publicClient) },
      paymaster: {
        getPaymasterStubData: async () => forViem(stubPaymasterFields(setup)),
        getPaymasterData: async (request) =>
          forViem(
            await sponsoredPaymasterFields({
              setup,
              chainId: foundry.id,
              op: { signature: '0x', ...request } as unknown as AnyUserOperation,
              validUntil: Math.floor(Date.now() / 1000) + 600,
              validAfter: 0,
            }),
          ),
      },
    });
    const empty = await newEmptyAccount(publicClient, '0.7');
    const sponsoredMint = await sponsoring.sendUserOperation({ account: empty, calls: [mint(recipient)] });
    hashes = { transfer, mint: minted, reverting, sponsoredMint };

    await sponsored.chain.anvilRpc('anvil_setCode', [reverter, revertingCode]);
    bundle = (await callBundler(url, key, 'debug_bundler_sendBundleNow', [])).result;
    expect(bundle).toMatch(/^0x[0-9a-f]{64}$/);
    for (const hash of Object.values(hashes)) {
      const answer = await callBundler(url, key, 'eth_getUserOperationReceipt', [hash]);
      expect(answer.error).toBeUndefined();
      receipts.set(hash, answer.result);
    }
  }, 120_000);
  afterAll(async () => {
    await sponsored?.chain.service.stop();
  });

  it('every op of the bundle has the bundle transaction’s receipt, with all of the bundle’s logs', async () => {
    const chainReceipt = await publicClient.getTransactionReceipt({ hash: bundle });
    for (const hash of Object.values(hashes)) {
      const { receipt } = receipts.get(hash);
      expect(receipt.transactionHash).toBe(bundle);
      expect(receipt.blockHash).toBe(chainReceipt.blockHash);
      expect(receipt.logs.map((log: RpcLog) => log.logIndex)).toEqual(
        chainReceipt.logs.map((log) => `0x${log.logIndex.toString(16)}`),
      );
    }
  });

  it('an op that emitted nothing (a plain ETH transfer, its account deployed in the same op) has no logs and no reason', () => {
    const receipt = receipts.get(hashes.transfer);
    expect(receipt).toMatchObject({ success: true, paymaster: zeroAddress, logs: [] });
    expect(receipt).not.toHaveProperty('reason');
  });

  it('an op that minted tokens has exactly its Transfer log', () => {
    const receipt = receipts.get(hashes.mint);
    expect(receipt.success).toBe(true);
    expect(receipt).not.toHaveProperty('reason');
    expect(receipt.logs).toHaveLength(1);
    expect(receipt.logs[0]).toMatchObject({ address: token.toLowerCase(), transactionHash: bundle });
    expect(receipt.logs[0].topics[0]).toBe(transferTopic);
    expect(receipt.logs[0].topics[1]).toBe(pad(zeroAddress));
  });

  it('an op whose call reverted: success false, reason the revert bytes, no logs (not the EntryPoint’s revert report)', () => {
    const receipt = receipts.get(hashes.reverting);
    expect(receipt).toMatchObject({ success: false, reason: '0xdeadbeef', logs: [], paymaster: zeroAddress });
  });

  it('a sponsored op names its paymaster and has only its own Transfer log', () => {
    const receipt = receipts.get(hashes.sponsoredMint);
    expect(receipt).toMatchObject({ success: true, paymaster: getAddress(devnetPaymasters.v07) });
    expect(receipt).not.toHaveProperty('reason');
    expect(receipt.logs.map((log: RpcLog) => [log.address, log.topics[0]])).toEqual([[token.toLowerCase(), transferTopic]]);
  });

  it('the same answer when the receipt is built from the chain (an op this bundler did not record)', async () => {
    for (const hash of [hashes.mint, hashes.reverting]) {
      await sponsored.chain.service.database.db.deleteFrom('user_operations').where('hash', '=', hash).execute();
      const fromChain = await callBundler(url, key, 'eth_getUserOperationReceipt', [hash]);
      expect(fromChain.result).toEqual(receipts.get(hash));
    }
  });

  it('v0.6 frames them the same way: a bundle of a mint and a plain transfer, both deploying their account', async () => {
    const v06 = (client: PublicClient) =>
      toSimpleSmartAccount({
        client,
        owner: privateKeyToAccount(generatePrivateKey()),
        entryPoint: { address: entryPoint06Address, version: '0.6' },
        nonceKey: 0n,
      });
    const [minter, sender] = await Promise.all([v06(publicClient), v06(publicClient)]);
    await fund(sponsored.chain.service.anvil.url, [minter.address, sender.address], parseEther('1'));
    const bundler = bundlerClientFor(url, key, publicClient);
    const fees = await generousFees(publicClient);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const minted = await bundler.sendUserOperation({ account: minter, calls: [mint(recipient)], ...fees });
    const sent = await bundler.sendUserOperation({ account: sender, calls: [{ to: recipient, value: 7n }], ...fees });
    const v06Bundle = (await callBundler(url, key, 'debug_bundler_sendBundleNow', [])).result;
    const mintReceipt = (await callBundler(url, key, 'eth_getUserOperationReceipt', [minted])).result;
    const sentReceipt = (await callBundler(url, key, 'eth_getUserOperationReceipt', [sent])).result;
    expect(mintReceipt.receipt.transactionHash).toBe(v06Bundle);
    expect(sentReceipt.receipt.transactionHash).toBe(v06Bundle);
    expect(mintReceipt.logs.map((log: RpcLog) => [log.address, log.topics[0]])).toEqual([[token.toLowerCase(), transferTopic]]);
    expect(sentReceipt).toMatchObject({ success: true, logs: [], entryPoint: entryPoint06Address });
    expect(sentReceipt).not.toHaveProperty('reason');
  });
});
