import { createTestClient, createWalletClient, type Hex, http, parseEther } from 'viem';
import {
  entryPoint07Address,
  formatUserOperationRequest,
  toPackedUserOperation,
  type UserOperation,
} from 'viem/account-abstraction';
import { privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { entryPointV07Abi } from '../../src/erc4337/contracts/abis.ts';
import { type BundlerService, startBundlerService } from './start-bundler.ts';
import { callBundler, fund, generousFees, newSimpleAccount, type SimpleAccount } from './support.ts';

/**
 * "Already known", as Alto and Rundler say it: an op sent again while it is in the mempool, or after
 * it was included (by this bundler, or by another one straight to the EntryPoint), is -32602
 * "already known", not a nonce error.
 */
describe('an op sent again is "already known"', () => {
  let { service, key, url, publicClient, bundlerClient } = {} as BundlerService;

  beforeAll(async () => {
    // Block time 1 s: a waiting op is checked again after a second (not 12), the drop below comes soon.
    ({ service, key, url, publicClient, bundlerClient } = await startBundlerService({ chain: { block_time_s: 1 } }));
  }, 120_000);
  afterAll(() => service?.stop());

  /** A funded SimpleAccount's first op (it deploys the account), prepared by viem on the bundler and signed. */
  async function signedFirstOp(): Promise<{ account: SimpleAccount; op: UserOperation<'0.7'> }> {
    const account = await newSimpleAccount(publicClient);
    await fund(service.anvil.url, [account.address], parseEther('1'));
    const prepared = await bundlerClient.prepareUserOperation({
      account,
      calls: [{ to: account.address, value: 0n }],
      ...(await generousFees(publicClient)),
    });
    return { account, op: { ...prepared, signature: await account.signUserOperation(prepared) } as UserOperation<'0.7'> };
  }

  const sendRaw = (op: UserOperation<'0.7'>) =>
    callBundler(url, key, 'eth_sendUserOperation', [formatUserOperationRequest(op), entryPoint07Address]);

  it('while it is pending, and once this bundler included it (not "nonce too low")', async () => {
    const { op } = await signedFirstOp();
    expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    let hash: Hex;
    try {
      const first = await sendRaw(op);
      expect(first.error, JSON.stringify(first.error)).toBeUndefined();
      hash = first.result;
      const pending = await sendRaw(op);
      expect(pending.error).toEqual({
        code: -32602,
        message: `already known: the UserOperation ${hash} is already in the mempool`,
      });
    } finally {
      expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
    }
    const receipt = await bundlerClient.waitForUserOperationReceipt({ hash, timeout: 30_000 });
    const included = await sendRaw(op);
    expect(included.error?.code).toBe(-32602);
    expect(included.error?.message).toBe(
      `already known: the UserOperation ${hash} was already included in block ${receipt.receipt.blockNumber} (transaction ${receipt.receipt.transactionHash})`,
    );
  }, 60_000);

  it('once another bundler included it (its UserOperationEvent on chain): the op that deployed the account, and a later one', async () => {
    const { account, op: deploying } = await signedFirstOp();
    // Another bundler: anvil's account #3 sends handleOps itself.
    const other = createWalletClient({
      account: privateKeyToAccount(devnetExecutorKeys[2]!),
      chain: foundry,
      transport: http(service.anvil.url),
    });
    const includeElsewhere = async (op: UserOperation<'0.7'>) => {
      const tx = await other.writeContract({
        address: entryPoint07Address,
        abi: entryPointV07Abi,
        functionName: 'handleOps',
        args: [[toPackedUserOperation(op)], other.account.address],
        gas: 2_000_000n,
      });
      const mined = await publicClient.waitForTransactionReceipt({ hash: tx, timeout: 30_000 });
      expect(mined.status).toBe('success');
      return mined;
    };
    const expectKnown = async (op: UserOperation<'0.7'>, mined: { blockNumber: bigint; transactionHash: Hex }) => {
      const again = await sendRaw(op);
      expect(again.error?.code, JSON.stringify(again.error)).toBe(-32602);
      expect(again.error?.message).toMatch(
        new RegExp(
          `^already known: the UserOperation 0x[0-9a-f]{64} was already included in block ${mined.blockNumber} \\(transaction ${mined.transactionHash}\\)$`,
        ),
      );
    };
    // Its deploying op, sent again, finds the account deployed (AA10 in simulation).
    await expectKnown(deploying, await includeElsewhere(deploying));
    // A later op, sent again, finds its nonce used (AA25).
    const prepared = await bundlerClient.prepareUserOperation({
      account,
      calls: [{ to: account.address, value: 1n }],
      ...(await generousFees(publicClient)),
    });
    const later = { ...prepared, signature: await account.signUserOperation(prepared) } as UserOperation<'0.7'>;
    expect(later.nonce).toBe(1n);
    await expectKnown(later, await includeElsewhere(later));
  }, 60_000);

  it('an op dropped from the mempool (no longer valid) may be sent again once it is valid: it is pending again', async () => {
    const { account, op } = await signedFirstOp();
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(service.anvil.url) });
    expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    let hash: Hex;
    try {
      const first = await sendRaw(op);
      expect(first.error, JSON.stringify(first.error)).toBeUndefined();
      hash = first.result;
      // The account can no longer pay: after a block (and a second of waiting) the op is dropped.
      await testClient.setBalance({ address: account.address, value: 0n });
      const deadline = Date.now() + 15_000;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await testClient.mine({ blocks: 1 });
        const status = await callBundler(url, key, 'pimlico_getUserOperationStatus', [hash]);
        if (status.result.status === 'rejected') break;
        if (Date.now() > deadline) throw new Error(`the op was not dropped within 15 s: ${JSON.stringify(status)}`);
      }
      await testClient.setBalance({ address: account.address, value: parseEther('1') });
      const again = await sendRaw(op);
      expect(again, JSON.stringify(again.error)).toMatchObject({ result: hash });
      expect((await callBundler(url, key, 'pimlico_getUserOperationStatus', [hash])).result.status).toBe('not_submitted');
    } finally {
      expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
    }
    const receipt = await bundlerClient.waitForUserOperationReceipt({ hash, timeout: 30_000 });
    expect(receipt.success).toBe(true);
  }, 60_000);

  // Both read no op to replace before their validation, and the second insert met the first's row:
  // -32603 "internal error" (a unique-index violation), where the client must hear which op won.
  it('two different ops of one sender and nonce sent at once: one is admitted, the other is -32602, never -32603', async () => {
    const { account, op } = await signedFirstOp();
    const otherCall = await account.encodeCalls([{ to: '0x000000000000000000000000000000000000bEEF', value: 0n }]);
    const other = { ...op, callData: otherCall };
    const rival = { ...other, signature: await account.signUserOperation(other) } as UserOperation<'0.7'>;
    expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual'])).result).toBe('ok');
    try {
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all([sendRaw(op), sendRaw(rival)]);
        const admitted = answers.filter((answer) => answer.result !== undefined);
        const refused = answers.filter((answer) => answer.error !== undefined);
        expect(refused.map((answer) => answer.error?.code)).toEqual(refused.map(() => -32602));
        if (round === 0) expect(admitted).toHaveLength(1);
        // Later rounds: both are answered -32602 (already known, or underpriced against the winner).
        else expect(admitted).toHaveLength(0);
      }
    } finally {
      expect((await callBundler(url, key, 'debug_bundler_clearMempool', [])).result).toBe('ok');
      expect((await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto'])).result).toBe('ok');
    }
  }, 60_000);

  it('an op of a used nonce that was never included is still "nonce too low"', async () => {
    const { account, op: deploying } = await signedFirstOp();
    const deployed = await sendRaw(deploying);
    await bundlerClient.waitForUserOperationReceipt({ hash: deployed.result, timeout: 30_000 });
    const fees = await generousFees(publicClient);
    // Two different ops of nonce 1: one is signed and kept, the other is sent and lands.
    const prepared = await bundlerClient.prepareUserOperation({ account, calls: [{ to: account.address, value: 0n }], ...fees });
    const kept = { ...prepared, signature: await account.signUserOperation(prepared) } as UserOperation<'0.7'>;
    const hash = await bundlerClient.sendUserOperation({ account, calls: [{ to: account.address, value: 1n }], ...fees });
    await bundlerClient.waitForUserOperationReceipt({ hash, timeout: 30_000 });
    const answer = await sendRaw(kept);
    expect(answer.error?.code).toBe(-32500);
    expect(answer.error?.message).toMatch(/^AA25 invalid account nonce.*nonce too low/);
  }, 60_000);
});
