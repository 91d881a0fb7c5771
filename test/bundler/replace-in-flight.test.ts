import type { Address } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cli.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';
import { acceptingAccountCode, bareUserOperation } from './support.ts';

const sender = '0x000000000000000000000000000000000000acd1' as Address;

describe('replacing an op whose bundle is on its way (sent, not mined)', () => {
  let { chain, bundler, mineForReceipt } = {} as BundlerChain;
  beforeAll(async () => {
    ({ chain, bundler, mineForReceipt } = await startBundlerChain({
      accounts: [{ address: sender, code: acceptingAccountCode }],
    }));
  }, 120_000);
  afterAll(async () => {
    await chain?.anvilRpc('evm_setAutomine', [true]).catch(() => undefined);
    await chain?.service.stop();
  });

  const pendingTransactions = async () => {
    const pool = (await chain.anvilRpc('txpool_content')) as {
      pending: Record<string, Record<string, { hash: string; input: string }>>;
    };
    return Object.values(pool.pending).flatMap((byNonce) => Object.values(byNonce));
  };
  const statusOf = async (hash: string) =>
    (await bundler('pimlico_getUserOperationStatus', [hash])).result as { status: string; transactionHash: string | null };

  it('swaps the new op into the bundle at once: the replacement lands, the replaced op never does', async () => {
    // Fees well above the network's, so the bundle's own +10% replacement is within what both ops pay.
    const base = { ...bareUserOperation(sender), maxFeePerGas: '0xee6b2800', maxPriorityFeePerGas: '0x77359400' };
    const estimate = await bundler('eth_estimateUserOperationGas', [base, entryPoint07Address]);
    expect(estimate.error).toBeUndefined();
    const first = { ...base, ...estimate.result };
    await chain.anvilRpc('evm_setAutomine', [false]);
    const sent = await bundler('eth_sendUserOperation', [first, entryPoint07Address]);
    expect(sent.error).toBeUndefined();
    const firstTx = await eventually(async () => (await statusOf(sent.result)).transactionHash ?? undefined, {
      timeoutMs: 10_000,
      intervalMs: 100,
      what: 'the first bundle',
    });
    expect((await pendingTransactions()).map((tx) => tx.hash)).toEqual([firstTx]);

    // Less than 10% more is refused, naming the fees needed; 10% more on both replaces it.
    const raised = (percent: bigint) => ({
      ...first,
      maxFeePerGas: `0x${((BigInt(first.maxFeePerGas) * (100n + percent)) / 100n).toString(16)}`,
      maxPriorityFeePerGas: `0x${((BigInt(first.maxPriorityFeePerGas) * (100n + percent)) / 100n).toString(16)}`,
    });
    const underpriced = await bundler('eth_sendUserOperation', [raised(5n), entryPoint07Address]);
    expect(underpriced.error?.message).toMatch(/^replacement underpriced: .* to at least \d+ and \d+ wei/);
    const replacement = await bundler('eth_sendUserOperation', [raised(20n), entryPoint07Address]);
    expect(replacement.error, replacement.error?.message).toBeUndefined();

    // The bundle's transaction is replaced (same executor nonce) by one that carries the new op.
    const swappedTx = await eventually(
      async () => {
        const status = await statusOf(replacement.result);
        return status.status === 'submitted' && status.transactionHash !== firstTx ? status.transactionHash : undefined;
      },
      { timeoutMs: 10_000, intervalMs: 100, what: 'the bundle carrying the replacement' },
    );
    const pool = await pendingTransactions();
    expect(pool.map((tx) => tx.hash)).toEqual([swappedTx]);
    expect(pool[0]!.input).toContain(raised(20n).maxFeePerGas.slice(2).padStart(32, '0'));
    expect((await bundler('eth_getUserOperationByHash', [sent.result])).result).toBeNull();

    const receipt = await mineForReceipt(replacement.result, "the replacement's receipt");
    expect(receipt).toMatchObject({ success: true, receipt: { transactionHash: swappedTx } });
    expect((await bundler('eth_getUserOperationReceipt', [sent.result])).result).toBeNull();
    expect(await chain.anvilRpc('eth_getTransactionReceipt', [firstTx])).toBeNull();
    await chain.anvilRpc('evm_setAutomine', [true]);
  }, 60_000);
});
