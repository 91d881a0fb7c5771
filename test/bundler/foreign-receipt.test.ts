import { type Address, createWalletClient, getAddress, http } from 'viem';
import { entryPoint07Address, getUserOperationHash, toPackedUserOperation } from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';
import { acceptingAccountCode } from './support.ts';

const sender = '0x000000000000000000000000000000000000acc7' as Address;

describe('receipts of ops another bundler sent', () => {
  let { chain, key } = {} as BundlerChain;
  beforeAll(async () => {
    ({ chain, key } = await startBundlerChain({ accounts: [{ address: sender, code: acceptingAccountCode }] }));
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  it('eth_getUserOperationReceipt finds them on chain by their UserOperationEvent', async () => {
    const op = {
      sender,
      nonce: 0n,
      callData: '0x',
      callGasLimit: 10_000n,
      verificationGasLimit: 100_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      signature: '0x',
    } as const;
    const hash = getUserOperationHash({
      userOperation: op,
      entryPointAddress: entryPoint07Address,
      entryPointVersion: '0.7',
      chainId: foundry.id,
    });
    // Another bundler: anvil's account #3 sends handleOps itself.
    const other = createWalletClient({
      account: privateKeyToAccount(devnetExecutorKeys[2]!),
      chain: foundry,
      transport: http(chain.service.anvil.url),
    });
    const tx = await other.writeContract({
      address: entryPoint07Address,
      abi: entryPointV07Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation(op)], other.account.address],
      gas: 1_000_000n,
    });
    await chain.publicClient.waitForTransactionReceipt({ hash: tx });

    const response = await fetch(`${chain.service.url}/v1/bundler/ethereum/devnet`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getUserOperationReceipt', params: [hash] }),
    });
    const { result } = (await response.json()) as { result: Record<string, unknown> & { receipt: { transactionHash: string } } };
    expect(result).toMatchObject({
      userOpHash: hash,
      entryPoint: entryPoint07Address,
      sender: getAddress(sender),
      nonce: '0x0',
      success: true,
    });
    expect(result.receipt.transactionHash).toBe(tx);
    expect(BigInt(result.actualGasUsed as string)).toBeGreaterThan(0n);

    const unknown = await fetch(`${chain.service.url}/v1/bundler/ethereum/devnet`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'eth_getUserOperationReceipt', params: [`0x${'ab'.repeat(32)}`] }),
    });
    expect(((await unknown.json()) as { result: unknown }).result).toBeNull();
  });
});
