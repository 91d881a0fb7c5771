import { type Address, type BaseError, createTestClient, createWalletClient, http, parseEther, toHex } from 'viem';
import { entryPoint07Address, formatUserOperationRequest, type UserOperation } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegationDesignator } from '../../src/bundler/eip7702-authorization.ts';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { devAccount } from '../indexer/support.ts';
import { type Eip7702Bundler, implementation, startEip7702Bundler } from './eip7702-support.ts';
import { callBundler, countUserOperations, generousFees } from './support.ts';

/** EIP-7702 ops that land: the delegating op, its estimate, an op queued behind it, and the ones dropped or refused for the delegated code. */
describe('EIP-7702 UserOperations (eip7702Auth, EntryPoint v0.7)', () => {
  let { service, key, url, publicClient, bundlerClient, freshEoa, authorize } = {} as Eip7702Bundler;
  const recipient = privateKeyToAccount(generatePrivateKey()).address;

  beforeAll(async () => {
    ({ service, key, url, publicClient, bundlerClient, freshEoa, authorize } = await startEip7702Bundler());
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
  });

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
});
