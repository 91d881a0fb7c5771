import { toSimpleSmartAccount } from 'permissionless/accounts';
import { createPublicClient, http, parseEther } from 'viem';
import { createBundlerClient, entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

/**
 * A SimpleAccount v0.7 UserOperation sent through haproxy to the worker's bundler, with viem's bundler
 * client and permissionless's account: the account is deployed by its first op, which must land.
 * Seconds from send to receipt.
 */
export async function landOneUserOperation(urls: { lb: string; chain: string }, key: string): Promise<number> {
  const publicClient = createPublicClient({ chain: foundry, transport: http(urls.chain) });
  const account = await toSimpleSmartAccount({
    client: publicClient,
    owner: privateKeyToAccount(generatePrivateKey()),
    entryPoint: { address: entryPoint07Address, version: '0.7' },
  });
  await publicClient.request({
    method: 'anvil_setBalance' as never,
    params: [account.address, `0x${parseEther('1').toString(16)}`] as never,
  });
  const bundlerClient = createBundlerClient({
    client: publicClient,
    account,
    transport: http(`${urls.lb}/v1/bundler/ethereum/devnet`, {
      fetchOptions: { headers: { 'x-api-key': key } },
      timeout: 15_000,
    }),
  });
  const fees = await publicClient.estimateFeesPerGas();
  const sentAt = Date.now();
  const hash = await bundlerClient.sendUserOperation({
    calls: [{ to: '0x000000000000000000000000000000000000c0de', value: 1n }],
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  });
  const receipt = await bundlerClient.waitForUserOperationReceipt({ hash, timeout: 90_000, pollingInterval: 500 });
  if (!receipt.success) throw new Error(`UserOperation ${hash} landed but reverted (${receipt.reason ?? 'no reason'})`);
  return (Date.now() - sentAt) / 1_000;
}
