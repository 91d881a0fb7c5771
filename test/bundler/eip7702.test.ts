import { to7702SimpleSmartAccount } from 'permissionless/accounts';
import {
  type Address,
  type BaseError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  type PublicClient,
  parseEther,
  type SignedAuthorization,
  toHex,
} from 'viem';
import {
  type BundlerClient,
  entryPoint06Address,
  entryPoint07Address,
  formatUserOperationRequest,
  type UserOperation,
} from 'viem/account-abstraction';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { signAuthorization } from 'viem/actions';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegationDesignator } from '../../src/bundler/eip7702-authorization.ts';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { entryPointV07Abi, erc4337Addresses } from '../../src/erc4337/contracts/abis.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { devAccount } from '../indexer/support.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { bundlerClientFor, bundlerUrlOf, callBundler, countUserOperations, fund, generousFees, postBundler } from './support.ts';

const implementation = erc4337Addresses.v07.simple7702Account;

/**
 * permissionless's EIP-7702 SimpleAccount pointed at EntryPoint v0.7 and Blockyard's implementation.
 * Its types allow only v0.8 with eip7702; at run time it encodes v0.7's execute/executeBatch and signs
 * v0.7's userOpHash as a personal message, which is what Simple7702AccountV07 checks.
 */
function new7702Account(publicClient: PublicClient, owner: PrivateKeyAccount) {
  return to7702SimpleSmartAccount({
    client: publicClient,
    owner,
    entryPoint: { address: entryPoint07Address, version: '0.7' as '0.8' },
    accountLogicAddress: implementation,
  });
}

type Account7702 = Awaited<ReturnType<typeof new7702Account>>;

describe('EIP-7702 UserOperations (eip7702Auth, EntryPoint v0.7)', () => {
  let service: TestService;
  let key: string;
  let url: string;
  let publicClient: PublicClient;
  let bundlerClient: BundlerClient;
  const recipient = privateKeyToAccount(generatePrivateKey()).address;

  beforeAll(async () => {
    service = await startTestService({
      settings: { bundler_keys: devnetExecutorKeys[0] },
      chainsFor: (anvilUrl) => [
        {
          chain: 'ethereum',
          network: 'devnet',
          chain_id: 31337,
          testnet: true,
          dev_methods: true,
          upstreams: [{ url: anvilUrl }],
          bundler: { enabled: true },
        },
      ],
    });
    await installErc4337Contracts(service.anvil.url);
    key = (await service.createKey()).key;
    url = bundlerUrlOf(service.url);
    publicClient = createPublicClient({ chain: foundry, transport: http(service.anvil.url) }) as PublicClient;
    bundlerClient = bundlerClientFor(url, key, publicClient);
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

  /** A fresh EOA with 1 ETH (it pays its own ops), never delegated, and its account. */
  async function freshEoa(): Promise<{ owner: PrivateKeyAccount; account: Account7702 }> {
    const owner = privateKeyToAccount(generatePrivateKey());
    await fund(service.anvil.url, [owner.address], parseEther('1'));
    return { owner, account: await new7702Account(publicClient, owner) };
  }

  /** The EOA's authorization of the implementation (its next nonce and this chain unless told). */
  function authorize(signer: PrivateKeyAccount, options: { chainId?: number; nonce?: number } = {}) {
    const wallet = createWalletClient({ account: signer, chain: foundry, transport: http(service.anvil.url) });
    return signAuthorization(wallet, { address: implementation, ...options });
  }

  /** eth_getTransactionByHash of a bundle: its type and authorization list. */
  const bundleOf = (hash: `0x${string}`) => publicClient.getTransaction({ hash });

  it('an EOA never delegated sends an op with eip7702Auth: one type-4 bundle delegates it and runs the call; later ops need no authorization', async () => {
    const { owner, account } = await freshEoa();
    expect(await publicClient.getCode({ address: owner.address })).toBeUndefined();
    const authorization = await authorize(owner);
    expect(authorization.nonce).toBe(0);

    const first = await bundlerClient.sendUserOperation({
      account,
      authorization,
      calls: [{ to: recipient, value: 1000n }],
      ...(await generousFees(publicClient)),
    });
    const landed = await bundlerClient.waitForUserOperationReceipt({ hash: first, timeout: 30_000 });
    expect(landed.success).toBe(true);
    expect(landed.sender).toBe(owner.address);
    expect(await publicClient.getCode({ address: owner.address })).toBe(delegationDesignator(implementation));
    expect(await publicClient.getBalance({ address: recipient })).toBe(1000n);
    const bundle = await bundleOf(landed.receipt.transactionHash);
    expect(bundle.type).toBe('eip7702');
    expect(bundle.authorizationList).toHaveLength(1);
    expect(bundle.authorizationList?.[0]).toMatchObject({ address: implementation.toLowerCase(), chainId: foundry.id, nonce: 0 });

    // The op as sent, authorization included, and the receipt's transaction type.
    const byHash = await callBundler(url, key, 'eth_getUserOperationByHash', [first]);
    expect(byHash.result.userOperation.eip7702Auth).toEqual({
      address: implementation,
      chainId: toHex(foundry.id),
      nonce: '0x0',
      r: authorization.r,
      s: authorization.s,
      yParity: toHex(authorization.yParity ?? 0, { size: 1 }),
    });
    const receipt = await callBundler(url, key, 'eth_getUserOperationReceipt', [first]);
    expect(receipt.result.receipt.type).toBe('0x4');

    // viem sees code at the sender now and sends no authorization: a plain bundle.
    const second = await bundlerClient.sendUserOperation({
      account,
      calls: [{ to: recipient, value: 2000n }],
      ...(await generousFees(publicClient)),
    });
    const secondLanded = await bundlerClient.waitForUserOperationReceipt({ hash: second, timeout: 30_000 });
    expect(secondLanded.success).toBe(true);
    expect((await bundleOf(secondLanded.receipt.transactionHash)).type).toBe('eip1559');
    expect(
      (await callBundler(url, key, 'eth_getUserOperationByHash', [second])).result.userOperation.eip7702Auth,
    ).toBeUndefined();

    // The first authorization again (its nonce is used, but the sender already has this very delegation):
    // accepted, and left out of the bundle.
    const third = await bundlerClient.sendUserOperation({
      account,
      authorization,
      calls: [{ to: recipient, value: 3000n }],
      ...(await generousFees(publicClient)),
    });
    const thirdLanded = await bundlerClient.waitForUserOperationReceipt({ hash: third, timeout: 30_000 });
    expect(thirdLanded.success).toBe(true);
    expect((await bundleOf(thirdLanded.receipt.transactionHash)).type).toBe('eip1559');
    expect(await publicClient.getBalance({ address: recipient })).toBe(6000n);
  }, 60_000);

  it('the estimate covers the authorization: preVerificationGas is 25,000 more than for the same op without one', async () => {
    const { owner, account } = await freshEoa();
    const authorization = await authorize(owner);
    const calls = [{ to: recipient, value: 1n }];
    const fees = await generousFees(publicClient);
    const withAuthorization = await bundlerClient.estimateUserOperationGas({ account, authorization, calls, nonce: 0n, ...fees });
    expect(withAuthorization.verificationGasLimit).toBeGreaterThan(0n);
    expect(withAuthorization.callGasLimit).toBeGreaterThan(0n);
    const sent = await bundlerClient.sendUserOperation({ account, authorization, calls, nonce: 0n, ...fees });
    expect((await bundlerClient.waitForUserOperationReceipt({ hash: sent, timeout: 30_000 })).success).toBe(true);
    // The same op once the sender is delegated: no authorization.
    const without = await bundlerClient.estimateUserOperationGas({ account, calls, nonce: 1n, ...fees });
    expect(withAuthorization.preVerificationGas - without.preVerificationGas).toBe(25_000n);
  }, 60_000);

  it('an op queued behind the pending op that carries the authorization is validated as delegated, and both land in one bundle', async () => {
    const { owner, account } = await freshEoa();
    const authorization = await authorize(owner);
    const fees = await generousFees(publicClient);
    const payee = privateKeyToAccount(generatePrivateKey()).address;
    const gas = await bundlerClient.estimateUserOperationGas({
      account,
      authorization,
      calls: [{ to: payee, value: 1n }],
      nonce: 0n,
      ...fees,
    });
    await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual']);
    try {
      const first = await bundlerClient.sendUserOperation({
        account,
        authorization,
        calls: [{ to: payee, value: 1n }],
        nonce: 0n,
        ...fees,
      });
      // No authorization on the later op: the EOA is delegated once the first has run.
      const later = await bundlerClient.prepareUserOperation({
        account,
        calls: [{ to: payee, value: 2n }],
        nonce: 1n,
        callGasLimit: gas.callGasLimit,
        verificationGasLimit: gas.verificationGasLimit,
        preVerificationGas: gas.preVerificationGas,
        ...fees,
        parameters: ['fees', 'gas', 'nonce'],
      });
      const signature = await account.signUserOperation(later as never);
      const forged = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: 'not the owner' });
      const refused = await callBundler(url, key, 'eth_sendUserOperation', [
        formatUserOperationRequest({ ...later, signature: forged } as UserOperation),
        entryPoint07Address,
      ]);
      expect(refused.error?.code).toBe(-32507);
      const accepted = await callBundler(url, key, 'eth_sendUserOperation', [
        formatUserOperationRequest({ ...later, signature } as UserOperation),
        entryPoint07Address,
      ]);
      expect(accepted.error).toBeUndefined();
      expect((await callBundler(url, key, 'debug_bundler_sendBundleNow')).result).toMatch(/^0x[0-9a-f]{64}$/);
      const receipts = await Promise.all(
        [first, accepted.result].map((hash) => bundlerClient.waitForUserOperationReceipt({ hash, timeout: 30_000 })),
      );
      expect(receipts.map((receipt) => receipt.success)).toEqual([true, true]);
      expect(receipts[0]!.receipt.transactionHash).toBe(receipts[1]!.receipt.transactionHash);
      expect(await publicClient.getBalance({ address: payee })).toBe(3n);
    } finally {
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto']);
    }
  }, 60_000);

  it('ERC-7562 rules run on the delegated code: an implementation that reads TIMESTAMP in validation is -32502', async () => {
    const { owner, account } = await freshEoa();
    // validateUserOp of this code: TIMESTAMP, then return 32 zero bytes (valid). Its EntryPoint deposit pays the prefund.
    const timestampReader: Address = privateKeyToAccount(generatePrivateKey()).address;
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(service.anvil.url) });
    await testClient.setCode({ address: timestampReader, bytecode: '0x425060206000f3' });
    const dev = createWalletClient({ account: devAccount, chain: foundry, transport: http(service.anvil.url) });
    await publicClient.waitForTransactionReceipt({
      hash: await dev.writeContract({
        address: entryPoint07Address,
        abi: entryPointV07Abi,
        functionName: 'depositTo',
        args: [owner.address],
        value: parseEther('0.1'),
      }),
    });
    const authorization = await owner.signAuthorization({ address: timestampReader, chainId: foundry.id, nonce: 0 });
    const before = await countUserOperations(service.database.db);
    const error = await bundlerClient
      .sendUserOperation({
        account,
        authorization,
        calls: [{ to: recipient, value: 1n }],
        callGasLimit: 100_000n,
        verificationGasLimit: 200_000n,
        preVerificationGas: 100_000n,
        ...(await generousFees(publicClient)),
      })
      .catch((caught: unknown) => caught as BaseError);
    const rpcError = (error as BaseError).walk((cause) => (cause as { code?: number }).code === -32502) as {
      code: number;
      details: string;
    } | null;
    expect(rpcError, String(error)).not.toBeNull();
    expect(rpcError?.details).toMatch(/ERC-7562 OP-011: account uses banned opcode: TIMESTAMP/);
    expect(await countUserOperations(service.database.db)).toBe(before);
  });

  it('an authorization the EOA outdated before bundling (it sent a transaction) drops the op with the reason, and the bundler goes on', async () => {
    const { owner, account } = await freshEoa();
    const authorization = await authorize(owner);
    await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual']);
    try {
      const hash = await bundlerClient.sendUserOperation({
        account,
        authorization,
        calls: [{ to: recipient, value: 1n }],
        ...(await generousFees(publicClient)),
      });
      const wallet = createWalletClient({ account: owner, chain: foundry, transport: http(service.anvil.url) });
      await publicClient.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: recipient, value: 1n }) });
      expect((await callBundler(url, key, 'debug_bundler_sendBundleNow')).result).toBe('ok');
      expect((await callBundler(url, key, 'pimlico_getUserOperationStatus', [hash])).result.status).toBe('rejected');
      const row = await service.database.db
        .selectFrom('user_operations')
        .select(['status', 'reason'])
        .where('hash', '=', hash.toLowerCase())
        .executeTakeFirstOrThrow();
      expect(row).toEqual({
        status: 'failed',
        reason: expect.stringMatching(/EIP-7702 authorization has nonce 0 but the sender's nonce is now 1/),
      });
      expect(await publicClient.getCode({ address: owner.address })).toBeUndefined();
    } finally {
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto']);
    }
    // Another op still lands.
    const other = await freshEoa();
    const landed = await bundlerClient.waitForUserOperationReceipt({
      hash: await bundlerClient.sendUserOperation({
        account: other.account,
        authorization: await authorize(other.owner),
        calls: [{ to: recipient, value: 1n }],
        ...(await generousFees(publicClient)),
      }),
      timeout: 30_000,
    });
    expect(landed.success).toBe(true);
  }, 60_000);

  describe('bad authorizations are -32602 naming the field, and nothing is queued', () => {
    /**
     * An op of a fresh EOA with its authorization, estimated and signed by the real client; its RPC form.
     * The authorization is not part of the userOpHash: tests swap in a bad one without signing again.
     */
    async function signedOp(): Promise<{ owner: PrivateKeyAccount; op: Record<string, unknown> }> {
      const { owner, account } = await freshEoa();
      const authorization = await authorize(owner);
      const prepared = await bundlerClient.prepareUserOperation({
        account,
        authorization,
        calls: [{ to: recipient, value: 1n }],
        ...(await generousFees(publicClient)),
      });
      const signature = await account.signUserOperation(prepared as UserOperation<'0.7'>);
      const op = formatUserOperationRequest({ ...(prepared as UserOperation<'0.7'>), signature }) as Record<string, unknown>;
      return { owner, op };
    }

    const asRpc = (authorization: SignedAuthorization) =>
      (formatUserOperationRequest({ authorization } as UserOperation<'0.7'>) as { eip7702Auth: unknown }).eip7702Auth;

    async function expectRefused(method: string, params: unknown[], field: RegExp): Promise<string> {
      const before = await countUserOperations(service.database.db);
      const { status, body } = await postBundler(url, key, { jsonrpc: '2.0', id: 1, method, params });
      expect(status).toBe(200);
      expect(body.result).toBeUndefined();
      expect(body.error?.code, JSON.stringify(body.error)).toBe(-32602);
      expect(body.error?.message).toMatch(field);
      // A poll of the bundle loop (250 ms) and more: nothing queued, nothing bundled.
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await countUserOperations(service.database.db)).toBe(before);
      return body.error!.message;
    }

    it('signed by another key than the sender', async () => {
      const { owner, op } = await signedOp();
      const stranger = privateKeyToAccount(generatePrivateKey());
      const bad = await stranger.signAuthorization({ address: implementation, chainId: foundry.id, nonce: 0 });
      const message = await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth is not signed by the sender/,
      );
      expect(message).toContain(stranger.address);
      expect(message).toContain(owner.address);
      expect(await publicClient.getCode({ address: owner.address })).toBeUndefined();
    });

    it('for another chain', async () => {
      const { owner, op } = await signedOp();
      const bad = await owner.signAuthorization({ address: implementation, chainId: 1, nonce: 0 });
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth\.chainId is 1; it must be this network's 31337/,
      );
      // Estimation checks it too (only the signer is left to the send: clients estimate with a stub signature).
      await expectRefused(
        'eth_estimateUserOperationGas',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth\.chainId/,
      );
    });

    it('with another nonce than the EOA’s', async () => {
      const { owner, op } = await signedOp();
      const bad = await owner.signAuthorization({ address: implementation, chainId: foundry.id, nonce: 5 });
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth\.nonce is 5; the sender's transaction nonce is 0/,
      );
    });

    it('delegating to an address without code', async () => {
      const { owner, op } = await signedOp();
      const nowhere: Address = privateKeyToAccount(generatePrivateKey()).address;
      const bad = await owner.signAuthorization({ address: nowhere, chainId: foundry.id, nonce: 0 });
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: asRpc(bad) }, entryPoint07Address],
        /userOperation\.eip7702Auth\.address 0x[0-9a-fA-F]{40} has no code/,
      );
    });

    it('malformed: a yParity of 2, a missing address', async () => {
      const { op } = await signedOp();
      const auth = op.eip7702Auth as Record<string, unknown>;
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: { ...auth, yParity: '0x2' } }, entryPoint07Address],
        /userOperation\.eip7702Auth\.yParity must be 0x0 or 0x1/,
      );
      const { address: _, ...withoutAddress } = auth;
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, eip7702Auth: withoutAddress }, entryPoint07Address],
        /userOperation\.eip7702Auth\.address is missing/,
      );
    });

    it('with a factory (the EOA is the account; 0x7702 is EntryPoint v0.8’s marker)', async () => {
      const { op } = await signedOp();
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, factory: '0x7702', factoryData: '0x' }, entryPoint07Address],
        /userOperation\.factory 0x7702 is EntryPoint v0\.8's EIP-7702 marker: send the op to EntryPoint v0\.8/,
      );
    });

    it('a preVerificationGas that does not cover the authorization', async () => {
      const { owner, op } = await signedOp();
      const account = await new7702Account(publicClient, owner);
      const short = BigInt(op.preVerificationGas as string) - 20_000n;
      const unsigned: Record<string, string> = { ...(op as Record<string, string>), preVerificationGas: toHex(short) };
      const signature = await account.signUserOperation({
        sender: owner.address,
        nonce: BigInt(unsigned.nonce!),
        callData: unsigned.callData as `0x${string}`,
        callGasLimit: BigInt(unsigned.callGasLimit!),
        verificationGasLimit: BigInt(unsigned.verificationGasLimit!),
        preVerificationGas: short,
        maxFeePerGas: BigInt(unsigned.maxFeePerGas!),
        maxPriorityFeePerGas: BigInt(unsigned.maxPriorityFeePerGas!),
        signature: '0x',
      });
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...unsigned, signature, eip7702Auth: op.eip7702Auth }, entryPoint07Address],
        /preVerificationGas \d+ is below the \d+ this operation needs/,
      );
    });

    it('on EntryPoint v0.6 with initCode (the EOA is the account; eip7702-v06.test.ts sends one that lands)', async () => {
      const { op } = await signedOp();
      await expectRefused(
        'eth_sendUserOperation',
        [{ ...op, initCode: erc4337Addresses.v06.factory, paymasterAndData: '0x' }, entryPoint06Address],
        /^userOperation\.initCode must be empty with eip7702Auth/,
      );
    });
  });
});
