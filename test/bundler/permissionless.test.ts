import { createSmartAccountClient } from 'permissionless';
import { toSimpleSmartAccount } from 'permissionless/accounts';
import { createPublicClient, http, parseEther } from 'viem';
import { entryPoint06Address, entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cli.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';

describe('the bundler with permissionless clients', () => {
  let { chain, key } = {} as BundlerChain;

  beforeAll(async () => {
    ({ chain, key } = await startBundlerChain());
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  it.each([
    ['0.7', entryPoint07Address],
    ['0.6', entryPoint06Address],
  ] as const)(
    'v%s: the wallet from /v1/wallets/create is deployed by its first op, later ops execute',
    async (version, entryPointAddress) => {
      const owner = privateKeyToAccount(generatePrivateKey());
      const publicClient = createPublicClient({ chain: foundry, transport: http(chain.service.anvil.url) });
      // Nonce key 0 (viem's default key derives from the time): the API's nonce is key 0's.
      const account = await toSimpleSmartAccount({
        client: publicClient,
        owner,
        entryPoint: { address: entryPointAddress, version },
        nonceKey: 0n,
      });
      const created = await fetch(`${chain.service.url}/v1/wallets/create`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ owner: owner.address, chain: 'ethereum', entry_point_version: version }),
      }).then((r) => r.json() as Promise<{ address: string; status: string }>);
      expect(created.address).toBe(account.address);
      expect(created.status).toBe('counterfactual');
      await chain.wallet.sendTransaction({ to: account.address, value: parseEther('1') });

      const client = createSmartAccountClient({
        account,
        chain: foundry,
        bundlerTransport: http(`${chain.service.url}/v1/bundler/ethereum/devnet`, {
          fetchOptions: { headers: { 'x-api-key': key } },
        }),
        pollingInterval: 100,
        userOperation: { estimateFeesPerGas: async () => publicClient.estimateFeesPerGas() },
      });
      const recipient = privateKeyToAccount(generatePrivateKey()).address;
      const first = await client.sendTransaction({ to: recipient, value: 1000n });
      expect(first).toMatch(/^0x[0-9a-f]{64}$/);
      const second = await client.sendTransaction({ to: recipient, value: 2000n });
      expect(second).not.toBe(first);
      expect(await publicClient.getBalance({ address: recipient })).toBe(3000n);

      const wallet = await eventually(
        async () => {
          const got = await fetch(`${chain.service.url}/v1/wallets/${account.address}`, { headers: { 'x-api-key': key } }).then(
            (r) => r.json() as Promise<{ status: string; deploy_tx: string | null; nonce: number }>,
          );
          return got.deploy_tx ? got : undefined;
        },
        { timeoutMs: 10_000, intervalMs: 100, what: 'the wallet recorded as deployed' },
      );
      expect(wallet).toMatchObject({ status: 'deployed', deploy_tx: first, nonce: 2 });
    },
  );
});
