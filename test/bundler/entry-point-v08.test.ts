import { toSimpleSmartAccount } from 'permissionless/accounts';
import { createPublicClient, http, type PublicClient, parseEther } from 'viem';
import {
  createBundlerClient,
  createPaymasterClient,
  entryPoint08Address,
  formatUserOperationRequest,
  toSimple7702SmartAccount,
} from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendFrom7702Account, simple7702Account } from '../../examples/simple-7702-account.ts';
import { delegationDesignator } from '../../src/bundler/eip7702-authorization.ts';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import type { Network } from '../../src/chains/registry.ts';
import { erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { installDevnetPaymasters } from '../../src/paymaster/install-devnet-paymasters.ts';
import { paymasterSetupsOf } from '../../src/paymaster/paymaster-setup.ts';
import { devnetSponsorKey } from '../../src/paymaster/sponsor-key.ts';
import { type IndexedChain, startIndexedChain } from '../indexer/support.ts';
import { devnetPaymasters } from '../paymaster/support.ts';
import { bundlerUrlOf, callBundler, fund } from './support.ts';

const v08 = erc4337Addresses.v08;

describe('EntryPoint v0.8: viem toSimple7702SmartAccount and permissionless, sponsored and not', () => {
  let chain: IndexedChain;
  let key: string;
  let bundlerUrl: string;
  let publicClient: PublicClient;

  beforeAll(async () => {
    chain = await startIndexedChain({
      settings: {
        bundler_keys: devnetExecutorKeys[0],
        sponsor_key: devnetSponsorKey,
        tokens: { prices: [{ chain: 'ethereum', network: 'devnet', contract: 'native', usd: '2000' }] },
      },
      chainSettings: { bundler: { enabled: true }, erc4337: { paymaster_v08: devnetPaymasters.v08 } },
    });
    await installErc4337Contracts(chain.service.anvil.url);
    const network = { config: chain.service.service.ctx.config.chains[0]! } as Pick<Network, 'config'>;
    await installDevnetPaymasters(chain.service.anvil.url, paymasterSetupsOf(network, chain.service.service.ctx.config));
    key = (await chain.service.createKey()).key;
    bundlerUrl = bundlerUrlOf(chain.service.url);
    publicClient = createPublicClient({ chain: foundry, transport: http(chain.service.anvil.url) }) as PublicClient;
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  const transport = () => http(bundlerUrl, { fetchOptions: { headers: { 'x-api-key': key } }, retryCount: 0, timeout: 30_000 });
  /** As a Pimlico example builds it, with Blockyard's URL (and, sponsored, Blockyard as the ERC-7677 paymaster). */
  const bundlerClient = (policyId?: string) =>
    createBundlerClient({
      client: publicClient,
      chain: foundry,
      transport: transport(),
      pollingInterval: 100,
      ...(policyId
        ? { paymaster: createPaymasterClient({ transport: transport() }), paymasterContext: { policy_id: policyId } }
        : {}),
    });
  const newPolicy = async () => {
    const response = await fetch(`${chain.service.url}/v1/gas/policies`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'v08', chain: 'ethereum', network: 'devnet', rules: { max_gas_usd: '100' } }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };

  it('serves v0.8 beside v0.6 and v0.7, with its canonical contracts on the devnet', async () => {
    const supported = await callBundler(bundlerUrl, key, 'eth_supportedEntryPoints');
    expect(supported.result).toContain(entryPoint08Address);
    for (const address of Object.values(v08)) expect((await publicClient.getCode({ address }))?.length ?? 0).toBeGreaterThan(2);
  });

  it.each([
    ['self-funded', false],
    ['sponsored through ERC-7677', true],
  ] as const)(
    'examples/simple-7702-account.ts, %s: the first op carries eip7702Auth, the second none; both land',
    async (_, sponsored) => {
      const endpoint = { baseUrl: chain.service.url, apiKey: key };
      const ownerKey = generatePrivateKey();
      const owner = privateKeyToAccount(ownerKey).address;
      if (!sponsored) await fund(chain.service.anvil.url, [owner], parseEther('1'));
      const policyId = sponsored ? await newPolicy() : undefined;
      const to = privateKeyToAccount(generatePrivateKey()).address;
      // A sponsored EOA has no ETH at all: its calls move none.
      const value = sponsored ? 0n : 1n;

      const first = await sendFrom7702Account(endpoint, ownerKey, { to, value }, policyId);
      expect(first).toMatchObject({ account: owner, withAuthorization: true, success: true, entryPoint: entryPoint08Address });
      expect(first.code).toBe(delegationDesignator(simple7702Account));
      const second = await sendFrom7702Account(endpoint, ownerKey, { to, value: 2n * value }, policyId);
      expect(second).toMatchObject({ withAuthorization: false, success: true });
      expect(await publicClient.getBalance({ address: to })).toBe(3n * value);
      if (sponsored) {
        expect([first.paymaster, second.paymaster]).toEqual([devnetPaymasters.v08, devnetPaymasters.v08]);
        expect(await publicClient.getBalance({ address: owner })).toBe(0n);
      }
      const byHash = await callBundler(bundlerUrl, key, 'eth_getUserOperationByHash', [first.userOpHash]);
      expect(byHash.result).toMatchObject({
        entryPoint: entryPoint08Address,
        userOperation: { factory: '0x7702000000000000000000000000000000000000', eip7702Auth: { address: simple7702Account } },
      });
    },
    90_000,
  );

  it('a permissionless SimpleAccount on v0.8 deploys through the v0.8 factory and sends, self-funded and sponsored', async () => {
    for (const policyId of [undefined, await newPolicy()]) {
      const account = await toSimpleSmartAccount({
        client: publicClient,
        owner: privateKeyToAccount(generatePrivateKey()),
        entryPoint: { address: entryPoint08Address, version: '0.8' },
      });
      if (!policyId) await fund(chain.service.anvil.url, [account.address], parseEther('1'));
      const client = bundlerClient(policyId);
      const hash = await client.sendUserOperation({ account, calls: [{ to: account.address, value: 0n, data: '0x' }] });
      const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 30_000 });
      expect(receipt.success).toBe(true);
      expect(receipt.userOpHash).toBe(hash);
      expect((await publicClient.getCode({ address: account.address }))?.length ?? 0).toBeGreaterThan(2);
    }
  }, 90_000);

  // The 0x7702 marker without eip7702Auth, from an EOA that delegates to nothing: send said so
  // (-32602), estimation answered -32500 with the simulation's bare "sender has no code".
  it('estimating a 0x7702-marker op without eip7702Auth from an undelegated EOA is -32602 as on send', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    await fund(chain.service.anvil.url, [owner.address], parseEther('1'));
    const account = await toSimple7702SmartAccount({ client: publicClient, owner });
    const op = {
      sender: owner.address,
      nonce: 0n,
      factory: '0x7702' as const,
      factoryData: '0x' as const,
      callData: await account.encodeCalls([{ to: owner.address, value: 0n }]),
      callGasLimit: 0n,
      verificationGasLimit: 0n,
      preVerificationGas: 0n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
      signature: await account.getStubSignature(),
    };
    for (const method of ['eth_estimateUserOperationGas', 'eth_sendUserOperation']) {
      const answer = await callBundler(bundlerUrl, key, method, [formatUserOperationRequest(op), entryPoint08Address]);
      expect(answer.error, method).toMatchObject({ code: -32602, data: { field: 'eip7702Auth' } });
      expect(answer.error?.message).toMatch(/0x7702 marker but the sender .* has no EIP-7702 delegation/);
    }
  });
});
