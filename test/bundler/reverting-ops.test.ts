import { type Address, type Hex, parseEther, RpcRequestError } from 'viem';
import { entryPoint07Address, formatUserOperationRequest, type UserOperation } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundlerService, startBundlerService } from './start-bundler.ts';
import { callBundler, fund, generousFees, installReverter, newSimpleAccount, revertBytes } from './support.ts';

/**
 * An op whose validation passes but whose call reverts is the sender's business, as in Alto and
 * Rundler: it is accepted and bundled, and the sender pays for its revert. Only estimation says the
 * call reverts (and the sponsorship endpoints refuse to pay for it: test/sponsorship/operator-caps.test.ts).
 */
describe('ops whose call reverts', () => {
  let { service, key, url, publicClient, bundlerClient } = {} as BundlerService;
  const reverter: Address = '0xbeefbeefbeefbeefbeefbeefbeefbeefbeefbeef';

  beforeAll(async () => {
    ({ service, key, url, publicClient, bundlerClient } = await startBundlerService());
    await installReverter(service.anvil.url, reverter);
  }, 120_000);
  afterAll(() => service?.stop());

  /** A funded SimpleAccount (not deployed) and gas for its first op, estimated with a call that succeeds. */
  async function fundedAccount() {
    const account = await newSimpleAccount(publicClient);
    await fund(service.anvil.url, [account.address], parseEther('1'));
    const estimate = await bundlerClient.estimateUserOperationGas({
      account,
      calls: [{ to: account.address, value: 0n }],
      ...(await generousFees(publicClient)),
    });
    const gas = {
      callGasLimit: estimate.callGasLimit + 50_000n,
      verificationGasLimit: estimate.verificationGasLimit,
      // Room for the reverting call's few more calldata bytes than the estimated one's.
      preVerificationGas: estimate.preVerificationGas + 1_000n,
    };
    return { account, gas };
  }

  const revertingCall = [{ to: reverter, data: '0x1234' as Hex }];

  it('eth_estimateUserOperationGas answers -32521 "UserOperation reverted during simulation with reason: <the revert bytes>"', async () => {
    const { account } = await fundedAccount();
    const error = await bundlerClient
      .estimateUserOperationGas({ account, calls: revertingCall, ...(await generousFees(publicClient)) })
      .then(
        () => undefined,
        (failure: Error) => failure,
      );
    const rpc = (error as RpcRequestError | undefined)?.walk?.((cause) => cause instanceof RpcRequestError);
    expect(rpc, String(error)).toBeInstanceOf(RpcRequestError);
    expect((rpc as RpcRequestError).code).toBe(-32521);
    expect((rpc as RpcRequestError).details).toBe(
      `UserOperation reverted during simulation with reason: ${revertBytes} (blockyard test: always reverts)`,
    );
    expect((rpc as RpcRequestError).data).toBe(revertBytes);
  });

  it('eth_sendUserOperation (viem) accepts it and bundles it: the receipt has success false and the revert bytes in reason, and the sender paid', async () => {
    const { account, gas } = await fundedAccount();
    const before = await publicClient.getBalance({ address: account.address });
    const hash = await bundlerClient.sendUserOperation({
      account,
      calls: revertingCall,
      ...gas,
      ...(await generousFees(publicClient)),
    });
    const receipt = await bundlerClient.waitForUserOperationReceipt({ hash, timeout: 30_000 });
    expect(receipt.success).toBe(false);
    expect(receipt.reason).toBe(revertBytes);
    expect(receipt.actualGasCost).toBeGreaterThan(0n);
    // Validation ran: the account was deployed by the op, and paid for it.
    expect(await publicClient.getCode({ address: account.address })).toMatch(/^0x[0-9a-f]{10,}/);
    expect(await publicClient.getBalance({ address: account.address })).toBeLessThan(before);
    const raw = await callBundler(url, key, 'eth_getUserOperationReceipt', [hash]);
    expect(raw.result).toMatchObject({ success: false, reason: revertBytes });
  }, 60_000);

  it('pimlico_sendUserOperationNow accepts it, bundles it at once and answers the receipt with success false and the revert bytes', async () => {
    const { account, gas } = await fundedAccount();
    const prepared = await bundlerClient.prepareUserOperation({
      account,
      calls: revertingCall,
      ...gas,
      ...(await generousFees(publicClient)),
    });
    const op = { ...prepared, signature: await account.signUserOperation(prepared) } as UserOperation<'0.7'>;
    const answer = await callBundler(url, key, 'pimlico_sendUserOperationNow', [
      formatUserOperationRequest(op),
      entryPoint07Address,
    ]);
    expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
    expect(answer.result).toMatchObject({ success: false, reason: revertBytes });
    expect(answer.result.sender.toLowerCase()).toBe(account.address.toLowerCase());
  }, 60_000);
});
