import { createSmartAccountClient } from 'permissionless';
import { BaseError, createPublicClient, HttpRequestError, http, type PublicClient, parseEther } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { restrictKey } from '../support/key-restrictions.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { bundlerClientFor, bundlerUrlOf, fund, newSimpleAccount, postBundler } from './support.ts';

const refusedBy = "refused by this API key's restrictions.";

/** What a permissionless smart account client calls on one bundler URL to send an op and wait for it. */
const smartAccountMethods = [
  'eth_chainId',
  'eth_call',
  'eth_getCode',
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_maxPriorityFeePerGas',
  'eth_gasPrice',
  'eth_feeHistory',
  'eth_estimateUserOperationGas',
  'eth_sendUserOperation',
  'eth_getUserOperationReceipt',
  'eth_getBalance',
];

/** The key's `methods` list covers the bundler's own methods and the chain's, on its endpoint. */
describe('a key’s methods list on the bundler endpoint', () => {
  let service: TestService;
  let bundlerUrl: string;
  let readOnlyKey: string;
  let accountKey: string;
  beforeAll(async () => {
    service = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainsFor: (anvilUrl) => [devnetChain(anvilUrl, { bundler: { enabled: true } })],
    });
    await installErc4337Contracts(service.anvil.url);
    bundlerUrl = bundlerUrlOf(service.url);
    const readOnly = await service.createKey();
    await restrictKey(service, readOnly.keyId, {
      methods: ['eth_chainId', 'eth_supportedEntryPoints', 'eth_getUserOperationReceipt', 'eth_blockNumber'],
    });
    readOnlyKey = readOnly.key;
    const account = await service.createKey();
    await restrictKey(service, account.keyId, { methods: smartAccountMethods });
    accountKey = account.key;
  }, 120_000);
  afterAll(() => service?.stop());

  const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

  it('a single refused call (the bundler’s own or the chain’s) is 403 naming the method; a listed one answers', async () => {
    const listed = await postBundler(bundlerUrl, readOnlyKey, call(1, 'eth_supportedEntryPoints'));
    expect(listed.status).toBe(200);
    expect(listed.body.result).toContain(entryPoint07Address);
    for (const method of ['eth_sendUserOperation', 'eth_getBalance', 'pm_getPaymasterStubData']) {
      const refused = await postBundler(bundlerUrl, readOnlyKey, call(2, method, []));
      expect(refused.status, method).toBe(403);
      expect(refused.body).toEqual({
        error: { code: 'forbidden', message: `${refusedBy}methods: the method '${method}' is not listed`, status: 403 },
      });
    }
  });

  it('in a batch only the refused calls fail (-32010 naming the method), the others answer in order', async () => {
    const { status, body } = await postBundler(bundlerUrl, readOnlyKey, [
      call(1, 'eth_chainId'),
      call(2, 'eth_sendUserOperation', [{}, entryPoint07Address]),
      call(3, 'eth_getBalance', [entryPoint07Address, 'latest']),
      call(4, 'eth_getUserOperationReceipt', [`0x${'ab'.repeat(32)}`]),
      call(5, 'eth_blockNumber'),
    ]);
    expect(status).toBe(200);
    expect(body.map((answer) => answer.id)).toEqual([1, 2, 3, 4, 5]);
    expect(body[0]!.result).toBe('0x7a69');
    expect(body[1]!.error).toEqual({
      code: -32010,
      message: `${refusedBy}methods: the method 'eth_sendUserOperation' is not listed`,
    });
    expect(body[2]!.error).toEqual({ code: -32010, message: `${refusedBy}methods: the method 'eth_getBalance' is not listed` });
    expect(body[3]!.result).toBeNull();
    expect(body[4]!.result).toMatch(/^0x/);
  });

  it('viem: the bundler client of a read-only key reads, and its sendUserOperation is a 403 naming the method', async () => {
    const publicClient = createPublicClient({ chain: foundry, transport: http(service.anvil.url) }) as PublicClient;
    const bundler = bundlerClientFor(bundlerUrl, readOnlyKey, publicClient);
    expect(await bundler.getSupportedEntryPoints()).toContain(entryPoint07Address);
    const account = await newSimpleAccount(publicClient);
    const error = await bundler
      .sendUserOperation({
        account,
        calls: [{ to: account.address, value: 0n }],
        callGasLimit: 100_000n,
        verificationGasLimit: 500_000n,
        preVerificationGas: 100_000n,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
      })
      .catch((e: unknown) => e);
    const http403 = error instanceof BaseError ? error.walk((e) => e instanceof HttpRequestError) : undefined;
    expect(http403, String(error)).toBeInstanceOf(HttpRequestError);
    expect((http403 as HttpRequestError).status).toBe(403);
    expect(String(error)).toContain(`${refusedBy}methods: the method 'eth_sendUserOperation' is not listed`);
  });

  it('a permissionless smart account client on a key listing the methods it uses sends an op that lands', async () => {
    const transport = http(bundlerUrl, { fetchOptions: { headers: { 'x-api-key': accountKey } }, retryCount: 0 });
    const publicClient = createPublicClient({ chain: foundry, transport }) as PublicClient;
    const account = await newSimpleAccount(publicClient, privateKeyToAccount(generatePrivateKey()));
    await fund(service.anvil.url, [account.address], parseEther('1'));
    const client = createSmartAccountClient({ account, chain: foundry, bundlerTransport: transport, pollingInterval: 100 });
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await client.sendTransaction({ to: recipient, value: 1234n });
    expect(await publicClient.getBalance({ address: recipient })).toBe(1234n);
  }, 60_000);
});
