// An EOA as its own ERC-4337 account on EntryPoint v0.8 (EIP-7702), built by viem's
// toSimple7702SmartAccount exactly as a Pimlico example builds it: only the URLs are Blockyard's.
// Its first op carries the authorization that delegates its code to eth-infinitism's
// Simple7702Account; later ops need none. With BLOCKYARD_POLICY (a gas policy id, gp_…), Blockyard
// is also the ERC-7677 paymaster and the EOA needs no ETH at all. Run against `npm start`:
//   BLOCKYARD_KEY=$(cat .blockyard/dev-api-key) npx tsx examples/simple-7702-account.ts
// On another address or port, BLOCKYARD_URL is the service's base URL (default http://127.0.0.1:8080).
import { type Address, createPublicClient, createWalletClient, type Hex, http, parseEther } from 'viem';
import { createBundlerClient, createPaymasterClient, toSimple7702SmartAccount } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

/** eth-infinitism's Simple7702Account for EntryPoint v0.8 (viem's default; the embedded devnet has it). */
export const simple7702Account: Address = '0xe6Cae83BdE06E4c305530e199D7217f42808555B';

export interface Endpoint {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  apiKey: string;
}

/** Sends one call from the EOA of `ownerKey`; with `policyId` the policy pays, else the EOA does. */
export async function sendFrom7702Account(
  { baseUrl, apiKey }: Endpoint,
  ownerKey: Hex,
  call: { to: Address; value: bigint },
  policyId?: string,
) {
  const headers = { 'x-api-key': apiKey };
  const publicClient = createPublicClient({
    chain: foundry,
    transport: http(`${baseUrl}/v1/rpc/ethereum/devnet`, { fetchOptions: { headers } }),
  });
  const owner = privateKeyToAccount(ownerKey);
  const account = await toSimple7702SmartAccount({ client: publicClient, owner });
  const bundlerTransport = http(`${baseUrl}/v1/bundler/ethereum/devnet`, { fetchOptions: { headers } });
  const bundlerClient = createBundlerClient({
    account,
    client: publicClient,
    transport: bundlerTransport,
    // The bundler's URL also answers ERC-7677's pm_getPaymasterStubData and pm_getPaymasterData.
    ...(policyId ? { paymaster: createPaymasterClient({ transport: bundlerTransport }), paymasterContext: { policy_id: policyId } } : {}),
    pollingInterval: 200,
  });
  // Until the EOA delegates, its op carries a signed authorization (viem leaves it out from then on).
  const authorization = (await account.isDeployed())
    ? undefined
    : await owner.signAuthorization({
        chainId: foundry.id,
        contractAddress: simple7702Account,
        nonce: await publicClient.getTransactionCount({ address: owner.address }),
      });
  const hash = await bundlerClient.sendUserOperation({ authorization, calls: [call] });
  const receipt = await bundlerClient.waitForUserOperationReceipt({ hash, timeout: 60_000 });
  return {
    account: account.address,
    userOpHash: hash,
    withAuthorization: authorization !== undefined,
    success: receipt.success,
    paymaster: receipt.paymaster,
    entryPoint: receipt.entryPoint,
    code: await publicClient.getCode({ address: owner.address }),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const endpoint = { baseUrl: process.env.BLOCKYARD_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.BLOCKYARD_KEY ?? '' };
  if (!endpoint.apiKey) throw new Error('set BLOCKYARD_KEY to an API key (e.g. $(cat .blockyard/dev-api-key))');
  const policyId = process.env.BLOCKYARD_POLICY;
  const ownerKey = generatePrivateKey();
  const to = privateKeyToAccount(generatePrivateKey()).address;
  if (!policyId) {
    // Self-funded: the devnet's first account gives the EOA some ETH to pay for its own ops.
    const funder = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
    const transport = http(`${endpoint.baseUrl}/v1/rpc/ethereum/devnet`, { fetchOptions: { headers: { 'x-api-key': endpoint.apiKey } } });
    const funding = await createWalletClient({ account: funder, chain: foundry, transport }).sendTransaction({
      to: privateKeyToAccount(ownerKey).address,
      value: parseEther('0.1'),
    });
    await createPublicClient({ chain: foundry, transport }).waitForTransactionReceipt({ hash: funding });
  }
  const value = policyId ? 0n : 1000n;
  console.log('first op', await sendFrom7702Account(endpoint, ownerKey, { to, value }, policyId));
  console.log('second op', await sendFrom7702Account(endpoint, ownerKey, { to, value }, policyId));
}
