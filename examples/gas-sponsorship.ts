// Gas sponsorship through Blockyard: a gas policy, then a smart account with no ETH sends with viem's
// bundler client, Blockyard as its ERC-7677 paymaster. Run against `npm start`:
//   BLOCKYARD_KEY=$(cat .blockyard/dev-api-key) npx tsx examples/gas-sponsorship.ts
// On another address or port, BLOCKYARD_URL is the service's base URL (default http://127.0.0.1:8080).
// It sponsors through the policy BLOCKYARD_POLICY names (gp_…), or through a new one it creates.
import { toSimpleSmartAccount } from 'permissionless/accounts';
import { type Address, createPublicClient, type Hex, http } from 'viem';
import { createBundlerClient, createPaymasterClient, entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';

export interface Endpoint {
  /** e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  apiKey: string;
}

/** A policy that sponsors up to $10 in total and 3 ops per sender a day. */
export async function createPolicy({ baseUrl, apiKey }: Endpoint): Promise<{ id: string }> {
  const response = await fetch(`${baseUrl}/v1/gas/policies`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'example', chain: 'ethereum', rules: { max_gas_usd: '10', max_per_user_per_day: 3 } }),
  });
  if (!response.ok) throw new Error(`policy not created: ${await response.text()}`);
  return (await response.json()) as { id: string };
}

/** A new SimpleAccount (no ETH at all) sends `value`-less call to `to`; the policy pays its gas. */
export async function sendSponsored({ baseUrl, apiKey }: Endpoint, policyId: string, ownerKey: Hex, to: Address) {
  const headers = { 'x-api-key': apiKey };
  const publicClient = createPublicClient({
    chain: foundry,
    transport: http(`${baseUrl}/v1/rpc/ethereum/devnet`, { fetchOptions: { headers } }),
  });
  const bundlerTransport = http(`${baseUrl}/v1/bundler/ethereum/devnet`, { fetchOptions: { headers } });
  const account = await toSimpleSmartAccount({
    client: publicClient,
    owner: privateKeyToAccount(ownerKey),
    entryPoint: { address: entryPoint07Address, version: '0.7' },
  });
  const bundlerClient = createBundlerClient({
    client: publicClient,
    transport: bundlerTransport,
    // The same endpoint answers ERC-7677's pm_getPaymasterStubData and pm_getPaymasterData.
    paymaster: createPaymasterClient({ transport: bundlerTransport }),
    paymasterContext: { policy_id: policyId },
    pollingInterval: 200,
  });
  const hash = await bundlerClient.sendUserOperation({ account, calls: [{ to, value: 0n, data: '0x' }] });
  const receipt = await bundlerClient.waitForUserOperationReceipt({ hash });
  return {
    account: account.address,
    success: receipt.success,
    paymaster: receipt.paymaster,
    actualGasCost: receipt.actualGasCost,
    accountBalance: await publicClient.getBalance({ address: account.address }),
  };
}

/** What the policy sponsored so far. */
export async function usage({ baseUrl, apiKey }: Endpoint, policyId: string) {
  const response = await fetch(`${baseUrl}/v1/gas/policies/${policyId}/usage`, { headers: { 'x-api-key': apiKey } });
  return (await response.json()) as { ops: number; sponsored_usd: string; settled_usd: string; reserved_usd: string };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const endpoint = { baseUrl: process.env.BLOCKYARD_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.BLOCKYARD_KEY ?? '' };
  if (!endpoint.apiKey) throw new Error('set BLOCKYARD_KEY to an API key (e.g. $(cat .blockyard/dev-api-key))');
  const policy = process.env.BLOCKYARD_POLICY ? { id: process.env.BLOCKYARD_POLICY } : await createPolicy(endpoint);
  console.log('policy', policy.id);
  const sent = await sendSponsored(endpoint, policy.id, generatePrivateKey(), privateKeyToAccount(generatePrivateKey()).address);
  console.log('sponsored op', sent);
  console.log('usage', await usage(endpoint, policy.id));
}
