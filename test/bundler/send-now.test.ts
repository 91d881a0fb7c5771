import { type Address, type Hex, parseEther, toEventSelector } from 'viem';
import {
  entryPoint07Address,
  formatUserOperationRequest,
  getUserOperationHash,
  type UserOperation,
} from 'viem/account-abstraction';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BundlerService, startBundlerService } from './start-bundler.ts';
import {
  acceptingAccountCode,
  bundlerClientFor,
  callBundler,
  countUserOperations,
  fund,
  generousFees,
  newSimpleAccount,
  postBundler,
  waitForReceipts,
} from './support.ts';

const userOperationEventTopic = toEventSelector('UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)');
const recipient = '0x000000000000000000000000000000000000beef' as Address;

describe('pimlico_sendUserOperationNow', () => {
  let { service, key, url, publicClient } = {} as BundlerService;
  beforeAll(async () => {
    ({ service, key, url, publicClient } = await startBundlerService());
  }, 120_000);
  afterAll(() => service?.stop());

  const anvil = async (method: string, params: unknown[]) => {
    const response = await fetch(service.anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(10_000),
    });
    return ((await response.json()) as { result: unknown }).result;
  };
  /** An account at `address` that accepts any op (no signature) and pays its prefund. */
  const acceptingAccount = async (address: Address) => {
    await anvil('anvil_setCode', [address, acceptingAccountCode]);
    await anvil('anvil_setBalance', [address, `0x${parseEther('1').toString(16)}`]);
  };
  const acceptingOp = (sender: Address, nonce: bigint) => ({
    sender,
    nonce: `0x${nonce.toString(16)}`,
    callData: '0x',
    callGasLimit: '0x2710',
    verificationGasLimit: '0x186a0',
    preVerificationGas: '0xea60',
    maxFeePerGas: '0xb2d05e00',
    maxPriorityFeePerGas: '0x3b9aca00',
    signature: '0x',
  });
  const setMode = async (mode: 'auto' | 'manual') => {
    const answer = await callBundler(url, key, 'debug_bundler_setBundlingMode', [mode]);
    expect(answer.result, JSON.stringify(answer.error)).toBe('ok');
  };
  /** A SimpleAccount's first op (it deploys the account), prepared by viem on our bundler and signed. */
  const signedDeployOp = async (account: Awaited<ReturnType<typeof newSimpleAccount>>) => {
    await fund(service.anvil.url, [account.address], parseEther('1'));
    const prepared = await bundlerClientFor(url, key, publicClient).prepareUserOperation({
      account,
      calls: [{ to: recipient, value: 1n }],
      ...(await generousFees(publicClient)),
    });
    return { ...prepared, signature: await account.signUserOperation(prepared) } as UserOperation<'0.7'>;
  };

  it('bundles the op by itself at once and answers its receipt, while the loop holds another op back', async () => {
    // Manual mode: the loop bundles nothing of its own, so only the method can have sent this op.
    await setMode('manual');
    let waiting: Hex;
    try {
      const other = '0x000000000000000000000000000000000000e501' as Address;
      await acceptingAccount(other);
      const queued = await callBundler(url, key, 'eth_sendUserOperation', [acceptingOp(other, 0n), entryPoint07Address]);
      expect(queued.error).toBeUndefined();
      waiting = queued.result;

      const account = await newSimpleAccount(publicClient);
      const op = await signedDeployOp(account);
      const hash = getUserOperationHash({
        userOperation: op,
        entryPointAddress: entryPoint07Address,
        entryPointVersion: '0.7',
        chainId: foundry.id,
      });
      const answer = await callBundler(url, key, 'pimlico_sendUserOperationNow', [
        formatUserOperationRequest(op),
        entryPoint07Address,
      ]);
      expect(answer.error).toBeUndefined();
      expect(answer.result).toMatchObject({ userOpHash: hash, success: true });
      expect(answer.result).not.toHaveProperty('reason'); // ERC-7769: only on failure
      expect(answer.result.sender.toLowerCase()).toBe(account.address.toLowerCase());
      // The same answer as eth_getUserOperationReceipt, and the account now exists.
      expect((await callBundler(url, key, 'eth_getUserOperationReceipt', [hash])).result).toEqual(answer.result);
      expect(await publicClient.getCode({ address: account.address })).toMatch(/^0x[0-9a-f]{10,}/);
      // Alone in its bundle: one UserOperationEvent in that transaction.
      const bundle = await publicClient.getTransactionReceipt({ hash: answer.result.receipt.transactionHash });
      expect(bundle.logs.filter((log) => log.topics[0] === userOperationEventTopic)).toHaveLength(1);
      // The other op is still waiting.
      expect((await callBundler(url, key, 'pimlico_getUserOperationStatus', [waiting])).result).toMatchObject({
        status: 'not_submitted',
      });
    } finally {
      await setMode('auto');
    }
    await waitForReceipts(url, key, [waiting], 30_000);
  }, 60_000);

  it('validates the op as eth_sendUserOperation does: a wrong signature is -32507 and nothing is queued', async () => {
    const account = await newSimpleAccount(publicClient);
    const op = await signedDeployOp(account);
    const before = await countUserOperations(service.database.db);
    // Signed by another owner for the same op.
    const forged = { ...op, signature: await (await newSimpleAccount(publicClient)).signUserOperation(op) };
    const answer = await callBundler(url, key, 'pimlico_sendUserOperationNow', [
      formatUserOperationRequest(forged),
      entryPoint07Address,
    ]);
    expect(answer.error?.code, JSON.stringify(answer)).toBe(-32507);
    expect(await countUserOperations(service.database.db)).toBe(before);
    expect(await publicClient.getCode({ address: account.address })).toBeUndefined();
  }, 60_000);

  it("an op queued behind its sender's pending op goes after it, and the answer is its receipt", async () => {
    const sender = '0x000000000000000000000000000000000000e502' as Address;
    await acceptingAccount(sender);
    await setMode('manual');
    let now: Promise<Awaited<ReturnType<typeof callBundler>>>;
    try {
      const first = await callBundler(url, key, 'eth_sendUserOperation', [acceptingOp(sender, 0n), entryPoint07Address]);
      expect(first.error).toBeUndefined();
      now = callBundler(url, key, 'pimlico_sendUserOperationNow', [acceptingOp(sender, 1n), entryPoint07Address]);
      // It does not jump the queue: nothing lands while the loop holds nonce 0.
      const early = await Promise.race([now, new Promise((resolve) => setTimeout(() => resolve('waiting'), 800))]);
      expect(early).toBe('waiting');
    } finally {
      await setMode('auto');
    }
    const answer = await now;
    expect(answer.error).toBeUndefined();
    expect(answer.result).toMatchObject({ nonce: '0x1', success: true });
    expect(answer.result.sender.toLowerCase()).toBe(sender);
  }, 60_000);

  it("when the op cannot be included (the chain does not mine), answers after 10 s with the op's hash and status, then it lands", async () => {
    const account = await newSimpleAccount(publicClient);
    const op = await signedDeployOp(account);
    const hash = getUserOperationHash({
      userOperation: op,
      entryPointAddress: entryPoint07Address,
      entryPointVersion: '0.7',
      chainId: foundry.id,
    });
    await anvil('evm_setAutomine', [false]);
    let answer: Awaited<ReturnType<typeof callBundler>>;
    let tookMs: number;
    try {
      const startedAt = performance.now();
      // callBundler gives up after 15 s: a method that hangs fails here.
      answer = await callBundler(url, key, 'pimlico_sendUserOperationNow', [formatUserOperationRequest(op), entryPoint07Address]);
      tookMs = performance.now() - startedAt;
    } finally {
      await anvil('evm_setAutomine', [true]);
    }
    expect(answer.error, JSON.stringify(answer.error)).toBeUndefined();
    // Its bundle was sent, and waits for a block.
    expect(answer.result).toEqual({
      userOpHash: hash,
      status: 'submitted',
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(tookMs).toBeGreaterThanOrEqual(9_900);
    expect(tookMs).toBeLessThan(12_500);
    await anvil('evm_mine', []);
    const receipts = await waitForReceipts(url, key, [hash], 30_000);
    expect(receipts.get(hash)?.success).toBe(true);
  }, 60_000);

  it('needs the bundler:send scope and costs what eth_sendUserOperation costs', async () => {
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'pimlico_sendUserOperationNow',
      params: [acceptingOp(recipient, 0n), entryPoint07Address],
    };
    const { key: readOnly } = await service.createKey({ scopes: ['rpc:read'] });
    expect((await postBundler(url, readOnly, call)).body.error?.code).toBe(-32010);
    // A growth account (2,000 CU a second): what one call spent (refused in simulation: the sender has no code).
    const { key: growth } = await service.createKey({ plan: 'growth' });
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': growth },
      body: JSON.stringify(call),
      signal: AbortSignal.timeout(15_000),
    });
    expect(((await response.json()) as { error?: { code: number } }).error?.code).toBe(-32500);
    expect(2000 - Number(response.headers.get('x-ratelimit-remaining-cu'))).toBe(100);
  });
});
