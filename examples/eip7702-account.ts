// An EOA as its own ERC-4337 account (EIP-7702, EntryPoint v0.7) through Blockyard: its first op
// carries the authorization that delegates its code to Simple7702AccountV07; later ops need none.
// Run against `npm start`:
//   BLOCKYARD_KEY=$(cat .blockyard/dev-api-key) npx tsx examples/eip7702-account.ts
// On another address or port, BLOCKYARD_URL is the service's base URL (default http://127.0.0.1:8080).
import { to7702SimpleSmartAccount } from 'permissionless/accounts';
import { type Address, createPublicClient, createWalletClient, type Hex, http, parseEther } from 'viem';
import { createBundlerClient, entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

/** Blockyard's EIP-7702 account implementation for EntryPoint v0.7 (on the embedded devnet). */
export const implementation: Address = '0xC143Fe9347eC5fe29173073A219AE20D65EcD945';

export interface Endpoint {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  apiKey: string;
}

/** Sends one op from the EOA of `ownerKey` (which pays its gas), with the authorization when it has no code yet. */
export async function sendFromEoa({ baseUrl, apiKey }: Endpoint, ownerKey: Hex, to: Address, value: bigint) {
  const headers = { 'x-api-key': apiKey };
  const transport = http(`${baseUrl}/v1/rpc/ethereum/devnet`, { fetchOptions: { headers } });
  const publicClient = createPublicClient({ chain: foundry, transport });
  const owner = privateKeyToAccount(ownerKey);
  const account = await to7702SimpleSmartAccount({
    client: publicClient,
    owner,
    // Typed for v0.8 only; at run time it signs v0.7's userOpHash, which is what this implementation checks.
    entryPoint: { address: entryPoint07Address, version: '0.7' as '0.8' },
    accountLogicAddress: implementation,
  });
  const bundlerClient = createBundlerClient({
    account,
    client: publicClient,
    transport: http(`${baseUrl}/v1/bundler/ethereum/devnet`, { fetchOptions: { headers } }),
    pollingInterval: 200,
  });
  // The first op carries a signed authorization: without one, viem sends its stub, which is refused.
  const authorization = (await account.isDeployed())
    ? undefined
    : await createWalletClient({ account: owner, chain: foundry, transport }).signAuthorization({ address: implementation });
  const hash = await bundlerClient.sendUserOperation({ authorization, calls: [{ to, value }] });
  const receipt = await bundlerClient.waitForUserOperationReceipt({ hash });
  return {
    account: account.address,
    userOpHash: hash,
    withAuthorization: authorization !== undefined,
    success: receipt.success,
    transactionHash: receipt.receipt.transactionHash,
    code: await publicClient.getCode({ address: owner.address }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const endpoint = { baseUrl: process.env.BLOCKYARD_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.BLOCKYARD_KEY ?? '' };
  if (!endpoint.apiKey) throw new Error('set BLOCKYARD_KEY to an API key (e.g. $(cat .blockyard/dev-api-key))');
  const ownerKey = generatePrivateKey();
  // The devnet's first account gives the EOA some ETH: it pays for its own ops.
  const funder = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  const transport = http(`${endpoint.baseUrl}/v1/rpc/ethereum/devnet`, { fetchOptions: { headers: { 'x-api-key': endpoint.apiKey } } });
  const funding = await createWalletClient({ account: funder, chain: foundry, transport }).sendTransaction({
    to: privateKeyToAccount(ownerKey).address,
    value: parseEther('0.1'),
  });
  await createPublicClient({ chain: foundry, transport }).waitForTransactionReceipt({ hash: funding });
  console.log('first op', await sendFromEoa(endpoint, ownerKey, funder.address, 1000n));
  console.log('second op', await sendFromEoa(endpoint, ownerKey, funder.address, 1000n));
}
