// Smart wallets through Blockyard: a SimpleAccount (permissionless) with viem's bundler client, or
// with permissionless' smart account client. Run against `npm start`:
//   BLOCKYARD_KEY=$(cat .blockyard/dev-api-key) npx tsx examples/smart-wallet.ts
// On another address or port, BLOCKYARD_URL is the service's base URL (default http://127.0.0.1:8080).
import { createSmartAccountClient } from 'permissionless';
import { toSimpleSmartAccount } from 'permissionless/accounts';
import { type Address, createPublicClient, type Hex, http, parseEther } from 'viem';
import { createBundlerClient, entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

export interface Endpoint {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  apiKey: string;
}

/** Every call carries the API key; the chain is read through the JSON-RPC proxy. */
function clients({ baseUrl, apiKey }: Endpoint) {
  const headers = { 'x-api-key': apiKey };
  const publicClient = createPublicClient({
    chain: foundry,
    transport: http(`${baseUrl}/v1/rpc/ethereum/devnet`, { fetchOptions: { headers } }),
  });
  const bundlerTransport = http(`${baseUrl}/v1/bundler/ethereum/devnet`, { fetchOptions: { headers } });
  return { publicClient, bundlerTransport };
}

/** The counterfactual wallet the API creates for an owner: the same address the account computes. */
export async function createWallet({ baseUrl, apiKey }: Endpoint, owner: Address): Promise<{ address: Address; status: string }> {
  const response = await fetch(`${baseUrl}/v1/wallets/create`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ owner, chain: 'ethereum' }),
  });
  if (!response.ok) throw new Error(`wallet not created: ${await response.text()}`);
  return (await response.json()) as { address: Address; status: string };
}

/** viem's bundler client: send a UserOperation and wait for its receipt. */
export async function sendWithViem(endpoint: Endpoint, ownerKey: Hex, to: Address, value: bigint) {
  const { publicClient, bundlerTransport } = clients(endpoint);
  const account = await toSimpleSmartAccount({
    client: publicClient,
    owner: privateKeyToAccount(ownerKey),
    entryPoint: { address: entryPoint07Address, version: '0.7' },
  });
  const bundlerClient = createBundlerClient({ account, client: publicClient, transport: bundlerTransport, pollingInterval: 200 });
  const hash = await bundlerClient.sendUserOperation({ calls: [{ to, value }] });
  const receipt = await bundlerClient.waitForUserOperationReceipt({ hash });
  return { account: account.address, userOpHash: hash, success: receipt.success, transactionHash: receipt.receipt.transactionHash };
}

/** permissionless' smart account client: a plain sendTransaction that goes as a UserOperation. */
export async function sendWithPermissionless(endpoint: Endpoint, ownerKey: Hex, to: Address, value: bigint) {
  const { publicClient, bundlerTransport } = clients(endpoint);
  const account = await toSimpleSmartAccount({
    client: publicClient,
    owner: privateKeyToAccount(ownerKey),
    entryPoint: { address: entryPoint07Address, version: '0.7' },
  });
  const smartAccountClient = createSmartAccountClient({
    account,
    chain: foundry,
    bundlerTransport,
    pollingInterval: 200,
    userOperation: { estimateFeesPerGas: () => publicClient.estimateFeesPerGas() },
  });
  const transactionHash = await smartAccountClient.sendTransaction({ to, value });
  return { account: account.address, transactionHash };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const endpoint = { baseUrl: process.env.BLOCKYARD_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.BLOCKYARD_KEY ?? '' };
  if (!endpoint.apiKey) throw new Error('set BLOCKYARD_KEY to an API key (e.g. $(cat .blockyard/dev-api-key))');
  const ownerKey = generatePrivateKey();
  const wallet = await createWallet(endpoint, privateKeyToAccount(ownerKey).address);
  console.log('wallet', wallet.address, wallet.status);
  // The devnet's first account pays the wallet's gas up front (no paymaster here).
  const funder = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
  const { publicClient } = clients(endpoint);
  const { createWalletClient } = await import('viem');
  const funding = await createWalletClient({ account: funder, chain: foundry, transport: http(`${endpoint.baseUrl}/v1/rpc/ethereum/devnet`, { fetchOptions: { headers: { 'x-api-key': endpoint.apiKey } } }) }).sendTransaction({
    to: wallet.address,
    value: parseEther('0.1'),
  });
  await publicClient.waitForTransactionReceipt({ hash: funding });
  console.log('viem', await sendWithViem(endpoint, ownerKey, funder.address, 1000n));
  console.log('permissionless', await sendWithPermissionless(endpoint, ownerKey, funder.address, 1000n));
}
