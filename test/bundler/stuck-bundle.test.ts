import type { Address } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cli.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';
import { acceptingAccountCode, bareUserOperation, executorAddress } from './support.ts';

const sender = '0x000000000000000000000000000000000000acc8' as Address;
/** The senders of the third case, with ops of nonce 0 whatever ran before. */
const payingSender = '0x000000000000000000000000000000000000acc9' as Address;
const otherSender = '0x000000000000000000000000000000000000acca' as Address;

describe('a bundle that is not mined', () => {
  let { chain, bundler, mineForReceipt } = {} as BundlerChain;
  beforeAll(async () => {
    ({ chain, bundler, mineForReceipt } = await startBundlerChain({
      accounts: [sender, payingSender, otherSender].map((address) => ({ address, code: acceptingAccountCode })),
    }));
  }, 120_000);
  afterAll(async () => {
    await chain?.anvilRpc('evm_setAutomine', [true]).catch(() => undefined);
    await chain?.service.stop();
  });

  const pendingTransactions = async () => {
    const pool = (await chain.anvilRpc('txpool_content')) as {
      pending: Record<
        string,
        Record<string, { hash: string; to: string; input: string; maxFeePerGas: string; maxPriorityFeePerGas: string }>
      >;
    };
    return Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce));
  };

  it('is sent again with the same nonce and fees raised by 10%, and the op lands', async () => {
    // A tip above the network's (1 gwei on anvil) leaves the op room to pay the replacement's.
    const base = { ...bareUserOperation(sender), maxFeePerGas: '0xee6b2800', maxPriorityFeePerGas: '0x77359400' };
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    await chain.anvilRpc('evm_setAutomine', [false]);
    const sent = await bundler('eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
    expect(sent.error).toBeUndefined();
    const first = await eventually(
      async () =>
        (
          (await bundler('pimlico_getUserOperationStatus', [sent.result])).result as {
            status: string;
            transactionHash: string | null;
          }
        ).transactionHash ?? undefined,
      { timeoutMs: 10_000, intervalMs: 100, what: 'the first bundle' },
    );
    const [sentTx] = await pendingTransactions();
    expect(sentTx).toMatchObject({ hash: first, maxPriorityFeePerGas: '0x3b9aca00' });
    // Nothing is mined: after 5 s the bundler replaces its transaction.
    const replaced = await eventually(
      async () => {
        const status = (await bundler('pimlico_getUserOperationStatus', [sent.result])).result as {
          transactionHash: string | null;
        };
        return status.transactionHash && status.transactionHash !== first ? status.transactionHash : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the replacement bundle' },
    );
    const queued = await pendingTransactions();
    expect(queued.map((tx) => tx.hash)).toEqual([replaced]);
    expect(BigInt(queued[0]!.maxPriorityFeePerGas)).toBe((1_000_000_000n * 110n) / 100n);
    expect(BigInt(queued[0]!.maxFeePerGas)).toBeGreaterThanOrEqual((BigInt(sentTx!.maxFeePerGas) * 110n) / 100n);
    const receipt = await mineForReceipt(sent.result, 'the receipt');
    expect(receipt).toMatchObject({ success: true, receipt: { transactionHash: replaced } });
  }, 60_000);

  it('is cancelled when its ops cannot pay the replacement; the op waits and lands in a later bundle', async () => {
    await chain.anvilRpc('evm_setAutomine', [true]);
    // Tip 1 gwei, the network's: a replacement needs 1.1 gwei, which this op does not pay.
    const base = { ...bareUserOperation(sender, '0x1'), maxFeePerGas: '0xee6b2800', maxPriorityFeePerGas: '0x3b9aca00' };
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    await chain.anvilRpc('evm_setAutomine', [false]);
    const sent = await bundler('eth_sendUserOperation', [{ ...base, ...estimate.result }, entryPoint07Address]);
    expect(sent.error).toBeUndefined();
    const statusOf = async () =>
      (await bundler('pimlico_getUserOperationStatus', [sent.result])).result as {
        status: string;
        transactionHash: string | null;
      };
    const first = await eventually(async () => (await statusOf()).transactionHash ?? undefined, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the first bundle',
    });
    // After 5 s without a block: an empty transaction from the executor to itself takes the nonce.
    const cancellation = await eventually(
      async () => (await pendingTransactions()).find((tx) => tx.hash !== first && tx.input === '0x'),
      { timeoutMs: 20_000, intervalMs: 200, what: 'the cancellation' },
    );
    expect(cancellation.to.toLowerCase()).toBe(executorAddress.toLowerCase());
    expect(BigInt(cancellation.maxPriorityFeePerGas)).toBe((1_000_000_000n * 110n) / 100n);
    // The op is not dropped: once the cancellation is mined it waits again, then a new bundle carries it.
    await chain.anvilRpc('evm_mine');
    const again = await eventually(
      async () => {
        const status = await statusOf();
        return status.transactionHash && status.transactionHash !== first ? status.transactionHash : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the op in a new bundle' },
    );
    const receipt = await mineForReceipt(sent.result, 'the receipt');
    expect(receipt).toMatchObject({ success: true, receipt: { transactionHash: again } });
  }, 60_000);

  it('is replaced without the ops that cannot pay the raised fees; those wait and land in a later bundle', async () => {
    await chain.anvilRpc('evm_setAutomine', [true]);
    const paying = { ...bareUserOperation(payingSender), maxFeePerGas: '0xee6b2800', maxPriorityFeePerGas: '0x77359400' };
    const notPaying = { ...bareUserOperation(otherSender), maxFeePerGas: '0xee6b2800', maxPriorityFeePerGas: '0x3b9aca00' };
    const estimates = await Promise.all(
      [paying, notPaying].map(async (op) => (await bundler('eth_estimateUserOperationGas', [op, entryPoint07Address])).result),
    );
    await chain.anvilRpc('evm_setAutomine', [false]);
    // Both in one bundle: held in manual mode until both are in the mempool.
    await bundler('debug_bundler_setBundlingMode', ['manual']);
    const [payingHash, notPayingHash] = await Promise.all(
      [paying, notPaying].map(
        async (op, index) =>
          (await bundler('eth_sendUserOperation', [{ ...op, ...estimates[index] }, entryPoint07Address])).result,
      ),
    );
    await bundler('debug_bundler_setBundlingMode', ['auto']);
    const txOf = async (hash: string) =>
      ((await bundler('pimlico_getUserOperationStatus', [hash])).result as { transactionHash: string | null }).transactionHash;
    const first = await eventually(async () => (await txOf(payingHash)) ?? undefined, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the bundle',
    });
    expect(await txOf(notPayingHash)).toBe(first);
    // After 5 s without a block: the replacement carries only the op whose tip leaves room for +10%.
    const replaced = await eventually(
      async () => {
        const tx = await txOf(payingHash);
        return tx && tx !== first ? tx : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the replacement' },
    );
    const [replacement] = await pendingTransactions();
    expect(replacement).toMatchObject({ hash: replaced });
    expect(replacement!.input).toContain(payingSender.slice(2).toLowerCase());
    expect(replacement!.input).not.toContain(otherSender.slice(2).toLowerCase());
    const receipt = await mineForReceipt(payingHash, "the paying op's receipt");
    expect(receipt).toMatchObject({ success: true, receipt: { transactionHash: replaced } });
    // The op left out went back to the mempool, and a new bundle carries it.
    const again = await eventually(
      async () => {
        const tx = await txOf(notPayingHash);
        return tx && tx !== first ? tx : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the left-out op in a new bundle' },
    );
    const later = await mineForReceipt(notPayingHash, "the left-out op's receipt");
    expect(later).toMatchObject({ success: true, receipt: { transactionHash: again } });
  }, 60_000);
});
