import { createPublicClient, http, type PublicClient, parseEther } from 'viem';
import { createBundlerClient, formatUserOperationRequest, type UserOperation } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyUserOperation } from '../../src/bundler/user-operation.ts';
import { type SponsoredFields, sponsoredPaymasterFields, stubPaymasterFields } from '../../src/paymaster/paymaster-data.ts';
import { newEmptyAccount, type SponsoredChain, startSponsoredChain } from '../paymaster/support.ts';
import { bundlerUrlOf, callBundler, fund, generousFees } from './support.ts';

const forViem = ({ version: _version, ...fields }: SponsoredFields) => fields;
const now = () => Math.floor(Date.now() / 1000);

describe('eth_estimateUserOperationGas answers every field a client reads', () => {
  let sponsored: SponsoredChain;
  let publicClient: PublicClient;
  let url: string;

  beforeAll(async () => {
    sponsored = await startSponsoredChain();
    publicClient = createPublicClient({ chain: foundry, transport: http(sponsored.chain.service.anvil.url) }) as PublicClient;
    url = bundlerUrlOf(sponsored.chain.service.url);
  }, 120_000);
  afterAll(async () => {
    await sponsored?.chain.service.stop();
  });

  /** The op `account` would send (paying nothing to a fresh address), unsigned, with `extra` fields. */
  async function draft(version: '0.6' | '0.7', extra: Record<string, unknown> = {}) {
    const account = await newEmptyAccount(publicClient, version);
    await fund(sponsored.chain.service.anvil.url, [account.address], parseEther('1'));
    const { factory, factoryData } = await account.getFactoryArgs();
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const op = {
      sender: account.address,
      nonce: 0n,
      callData: await account.encodeCalls([{ to: recipient, value: 0n }]),
      signature: await account.getStubSignature(),
      ...(version === '0.7' ? { factory, factoryData } : { initCode: `${factory}${factoryData!.slice(2)}` }),
      ...(await generousFees(publicClient)),
      ...extra,
    };
    return { account, op: formatUserOperationRequest(op as unknown as UserOperation) };
  }

  it('v0.7 without a paymaster: both paymaster limits are 0x0', async () => {
    const { account, op } = await draft('0.7');
    const answer = await callBundler(url, sponsored.key, 'eth_estimateUserOperationGas', [op, account.entryPoint.address]);
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ paymasterVerificationGasLimit: '0x0', paymasterPostOpGasLimit: '0x0' });
    expect(BigInt(answer.result.verificationGasLimit)).toBeGreaterThan(0n);
    expect(BigInt(answer.result.callGasLimit)).toBeGreaterThan(0n);
  });

  it('v0.6 has no paymaster limits to give', async () => {
    const { account, op } = await draft('0.6');
    const answer = await callBundler(url, sponsored.key, 'eth_estimateUserOperationGas', [op, account.entryPoint.address]);
    expect(answer.error).toBeUndefined();
    expect(Object.keys(answer.result).sort()).toEqual(['callGasLimit', 'preVerificationGas', 'verificationGasLimit']);
  });

  it('v0.7 sponsored: the estimate with the stub paymaster data has both limits, and the sponsored op built on it lands', async () => {
    const setup = sponsored.setups['0.7']!;
    const stub = forViem(stubPaymasterFields(setup));
    const { account, op } = await draft('0.7', stub);
    const answer = await callBundler(url, sponsored.key, 'eth_estimateUserOperationGas', [op, account.entryPoint.address]);
    expect(answer.error).toBeUndefined();
    expect(BigInt(answer.result.paymasterVerificationGasLimit)).toBeGreaterThan(0n);
    expect(answer.result.paymasterPostOpGasLimit).toMatch(/^0x[0-9a-f]+$/);

    // viem's own flow: stub data, estimate, then the signed sponsorship; the account holds ETH but the paymaster pays.
    const client = createBundlerClient({
      client: publicClient,
      chain: foundry,
      transport: http(url, { fetchOptions: { headers: { 'x-api-key': sponsored.key } }, retryCount: 0 }),
      pollingInterval: 100,
      userOperation: { estimateFeesPerGas: () => generousFees(publicClient) },
      paymaster: {
        getPaymasterStubData: async () => stub,
        getPaymasterData: async (request) =>
          forViem(
            await sponsoredPaymasterFields({
              setup,
              chainId: foundry.id,
              op: { signature: '0x', ...request } as unknown as AnyUserOperation,
              validUntil: now() + 600,
              validAfter: 0,
            }),
          ),
      },
    });
    const hash = await client.sendUserOperation({ account, calls: [{ to: account.address, value: 0n }] });
    const receipt = await client.waitForUserOperationReceipt({ hash, timeout: 30_000 });
    expect(receipt.success).toBe(true);
    expect(receipt.paymaster?.toLowerCase()).toBe(setup.address.toLowerCase());
  }, 60_000);
});
