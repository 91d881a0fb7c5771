import { createSmartAccountClient } from 'permissionless';
import { createPimlicoClient } from 'permissionless/clients/pimlico';
import { type Address, createWalletClient, type Hex, http, type PublicClient, parseEther, parseGwei } from 'viem';
import { entryPoint07Address } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexedChain } from '../indexer/support.ts';
import { eventually } from '../support/cli.ts';
import { type BundlerChain, startBundlerChain } from './start-bundler.ts';
import {
  bundlerClientFor,
  bundlerUrlOf,
  callBundler,
  executorAddress,
  fund,
  newSimpleAccount,
  type SimpleAccount,
  waitForReceipts,
} from './support.ts';

const fastOps = 20;
const blockGasLimit = 30_000_000n;
/** Fillers take 80% of each block (the base fee rises 7.5-12.5% a block, with the bundles' gas); bundles get the rest. */
const fillerGas = 1_000_000n;
const fillersPerBlock = 24;
/** Runtime code that loops until its gas runs out: each filler transaction uses all of its gas limit. */
const burnerCode: Hex = '0x5b600056';
const burner: Address = '0x00000000000000000000000000000000000b0b0b';

/**
 * Mines a block every second, as a 1-second chain would, each 80% full of filler transactions from an
 * account of its own while `filling` (the base fee then rises 7.5-12.5% a block with the bundles' gas),
 * empty after (it falls 12.5% a block). The blocks are mined here rather than by anvil's interval
 * mining so that every filled block gets its fillers, even on a loaded machine. anvil 1.7 orders its
 * pool by maxFeePerGas, not by tip (a real network's builders take the bundles' tip first): the
 * fillers bid high and always get in, and bundles get the space left, the case of a congested
 * network. Stops on `stop()` or after `maxMs`.
 */
function startBlockProducer(anvilUrl: string, anvilRpc: IndexedChain['anvilRpc'], maxMs: number) {
  const account = privateKeyToAccount(generatePrivateKey());
  const wallet = createWalletClient({ chain: foundry, transport: http(anvilUrl), account });
  const state: { filling: boolean; stopped: boolean; holdAt?: bigint } = { filling: true, stopped: false };
  let nonce = 0;
  const until = Date.now() + maxMs;
  const done = (async () => {
    await anvilRpc('anvil_setBalance', [account.address, `0x${parseEther('100000').toString(16)}`]);
    while (!state.stopped && Date.now() < until) {
      const started = Date.now();
      if (state.holdAt !== undefined && BigInt((await anvilRpc('eth_blockNumber')) as string) >= state.holdAt) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      if (state.filling) {
        await Promise.all(
          Array.from({ length: fillersPerBlock }, () =>
            wallet.sendTransaction({
              to: burner,
              gas: fillerGas,
              nonce: nonce++,
              maxFeePerGas: parseGwei('2000'),
              maxPriorityFeePerGas: 0n,
            }),
          ),
        );
      }
      await anvilRpc('evm_mine');
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 1_000 - (Date.now() - started))));
    }
  })();
  // A failure is reported by stop(), not as an unhandled rejection.
  const outcome = done.then(
    () => undefined,
    (error: unknown) => error,
  );
  return {
    stopFilling() {
      state.filling = false;
    },
    /** Mines no block past `block` until `release()`: what the test does meanwhile takes no block, however slow the machine. */
    holdAt(block: bigint) {
      state.holdAt = block;
    },
    release() {
      state.holdAt = undefined;
    },
    async stop() {
      state.stopped = true;
      const error = await outcome;
      if (error) throw error;
    },
  };
}

/**
 * Watches anvil's pool every 100 ms for the executor's transactions: each with its maxFeePerGas and
 * the next block's base fee read just before (a transaction still in the pool targets that block or a
 * later one, so its maxFeePerGas must cover it).
 */
function watchBundlePool(anvilRpc: IndexedChain['anvilRpc'], publicClient: PublicClient) {
  const seen = new Map<string, { maxFeePerGas: bigint; nextBaseFee: bigint }>();
  let stopped = false;
  const done = (async () => {
    const until = Date.now() + 120_000;
    while (!stopped && Date.now() < until) {
      const history = await publicClient.getFeeHistory({ blockCount: 1, blockTag: 'latest', rewardPercentiles: [] });
      const nextBaseFee = history.baseFeePerGas.at(-1)!;
      const pool = (await anvilRpc('txpool_content')) as {
        pending: Record<string, Record<string, { hash: string; maxFeePerGas: string }>>;
      };
      const executorTxs = Object.entries(pool.pending)
        .filter(([from]) => from.toLowerCase() === executorAddress.toLowerCase())
        .flatMap(([, byNonce]) => Object.values(byNonce));
      for (const tx of executorTxs) {
        const before = seen.get(tx.hash);
        // The highest base fee it was seen waiting for.
        if (!before || before.nextBaseFee < nextBaseFee)
          seen.set(tx.hash, { maxFeePerGas: BigInt(tx.maxFeePerGas), nextBaseFee });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const outcome = done.then(
    () => undefined,
    (error: unknown) => error,
  );
  return {
    seen,
    async stop() {
      stopped = true;
      const error = await outcome;
      if (error) throw error;
    },
  };
}

describe('the bundler under a base fee rising every block', () => {
  let { chain, key, publicClient } = {} as BundlerChain;

  beforeAll(async () => {
    ({ chain, key, publicClient } = await startBundlerChain({
      // Bundles of 8 deploying ops (~3.2M gas with the bundler's margin) fit in the 6M gas the fillers leave.
      bundler: { max_bundle_ops: 8 },
      chainSettings: { block_time_s: 1 },
    }));
  }, 120_000);
  afterAll(async () => {
    await chain?.service.stop();
  });

  it('lands ops sent at the quoted fast price, accepts a quote sent 3 blocks later, and never bids under the base fee', async () => {
    const url = bundlerUrlOf(chain.service.url);
    const bundlerClient = bundlerClientFor(url, key, publicClient);
    const transport = http(url, { fetchOptions: { headers: { 'x-api-key': key } }, timeout: 30_000, retryCount: 0 });
    const pimlico = createPimlicoClient({
      chain: foundry,
      transport,
      entryPoint: { address: entryPoint07Address, version: '0.7' },
    });
    const accounts = await Promise.all(Array.from({ length: fastOps + 4 }, () => newSimpleAccount(publicClient)));
    await fund(
      chain.service.anvil.url,
      accounts.map((account) => account.address),
      parseEther('1'),
    );
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const [late, lateStandard, lateFast, waiting, ...fast] = accounts as [
      SimpleAccount,
      SimpleAccount,
      SimpleAccount,
      SimpleAccount,
      ...SimpleAccount[],
    ];
    const send = (account: SimpleAccount, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) =>
      bundlerClient.sendUserOperation({ account, calls: [{ to: recipient, value: 1n }], ...fees });

    // 1-second blocks, each filled: the base fee starts at 10 gwei and rises every block.
    await chain.anvilRpc('anvil_setCode', [burner, burnerCode]);
    await chain.anvilRpc('evm_setBlockGasLimit', [`0x${blockGasLimit.toString(16)}`]);
    await chain.anvilRpc('anvil_setNextBlockBaseFeePerGas', [`0x${parseGwei('10').toString(16)}`]);
    await chain.anvilRpc('evm_setAutomine', [false]);
    const producer = startBlockProducer(chain.service.anvil.url, chain.anvilRpc, 120_000);
    const pool = watchBundlePool(chain.anvilRpc, publicClient);
    const waitForBlock = async (target: bigint, timeoutMs: number) => {
      await eventually(async () => ((await publicClient.getBlockNumber({ cacheTime: 0 })) >= target ? true : undefined), {
        timeoutMs,
        intervalMs: 100,
        what: `block ${target}`,
      });
    };
    const waitForBlocks = async (count: bigint) =>
      waitForBlock((await publicClient.getBlockNumber({ cacheTime: 0 })) + count, 10_000 * Number(count));
    try {
      await waitForBlocks(1n);
      const firstFilled = await publicClient.getBlockNumber({ cacheTime: 0 });

      // A quote taken now and used 3 filled blocks later (base fee up 25-42%) is still accepted, every
      // tier. The producer stops at the third block until the ops are in: exactly 3 blocks later.
      const quotedAt = await publicClient.getBlockNumber({ cacheTime: 0 });
      const quote = await pimlico.getUserOperationGasPrice();
      producer.holdAt(quotedAt + 3n);
      await waitForBlock(quotedAt + 3n, 30_000);
      const lateHashes = [
        await send(late, quote.slow),
        await send(lateStandard, quote.standard),
        await send(lateFast, quote.fast),
      ];

      // An op that pays exactly the next block's base fee, held until a block has raised it: it waits in
      // the mempool (no bundle below the base fee carries it) and lands once the base fee comes down.
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['manual']);
      const nextBaseFee = (await publicClient.getFeeHistory({ blockCount: 1, blockTag: 'latest', rewardPercentiles: [] }))
        .baseFeePerGas[1]!;
      const waitingHash = await send(waiting, { maxFeePerGas: nextBaseFee, maxPriorityFeePerGas: parseGwei('1') });
      producer.release();
      await waitForBlocks(1n);
      await callBundler(url, key, 'debug_bundler_setBundlingMode', ['auto']);

      // 20 ops priced as permissionless prices them: the quote's fast tier, asked before each op.
      const fastHashes = await Promise.all(
        fast.map((account) =>
          createSmartAccountClient({
            account,
            chain: foundry,
            bundlerTransport: transport,
            pollingInterval: 100,
            userOperation: { estimateFeesPerGas: async () => (await pimlico.getUserOperationGasPrice()).fast },
          }).sendUserOperation({ calls: [{ to: recipient, value: 1n }] }),
        ),
      );
      const fastReceipts = await waitForReceipts(url, key, fastHashes, 30_000);
      expect([...fastReceipts.values()].filter((receipt) => !receipt.success)).toEqual([]);
      const status = await callBundler(url, key, 'pimlico_getUserOperationStatus', [waitingHash]);
      expect(status.result).toEqual({ status: 'not_submitted', transactionHash: null });
      const filledUpTo = await publicClient.getBlockNumber({ cacheTime: 0 });
      producer.stopFilling();

      // Empty blocks bring the base fee down 12.5% each: the waiting op (and a late slow one) land then.
      const laterReceipts = await waitForReceipts(url, key, [...lateHashes, waitingHash], 45_000);
      expect([...laterReceipts.values()].map((receipt) => receipt.success)).toEqual([true, true, true, true]);
      await pool.stop();

      // The base fee rose in every filled block.
      const filled = await Promise.all(
        Array.from({ length: Number(filledUpTo - firstFilled) + 1 }, (_, index) =>
          publicClient.getBlock({ blockNumber: firstFilled + BigInt(index) }),
        ),
      );
      const baseFees = filled.map((block) => block.baseFeePerGas!);
      expect(baseFees.filter((fee, index) => index > 0 && fee <= baseFees[index - 1]!)).toEqual([]);
      expect(filled.length).toBeGreaterThanOrEqual(6);

      // No bundle in the pool ever waited for a block whose base fee its maxFeePerGas did not cover.
      expect(pool.seen.size).toBeGreaterThan(0);
      const underpriced = [...pool.seen.entries()].filter(([, tx]) => tx.maxFeePerGas < tx.nextBaseFee);
      expect(underpriced).toEqual([]);
      // Each mined bundle paid its block's base fee, and per gas no more than any of its ops pays the executor back.
      const receipts = [...fastReceipts.values(), ...laterReceipts.values()];
      const bundles = [...new Set(receipts.map((receipt) => receipt.receipt.transactionHash))];
      for (const hash of bundles) {
        const [tx, txReceipt] = await Promise.all([
          publicClient.getTransaction({ hash }),
          publicClient.getTransactionReceipt({ hash }),
        ]);
        const block = await publicClient.getBlock({ blockNumber: txReceipt.blockNumber });
        expect(tx.maxFeePerGas!).toBeGreaterThanOrEqual(block.baseFeePerGas!);
        expect(txReceipt.effectiveGasPrice).toBeGreaterThanOrEqual(block.baseFeePerGas!);
        for (const op of receipts.filter((receipt) => receipt.receipt.transactionHash === hash)) {
          const full = op as typeof op & { actualGasUsed: Hex };
          expect(txReceipt.effectiveGasPrice).toBeLessThanOrEqual(BigInt(op.actualGasCost) / BigInt(full.actualGasUsed));
        }
      }
      console.info(
        `rising-base-fee: ${filled.length} filled blocks, base fee ${filled[0]!.baseFeePerGas} -> ${filled.at(-1)!.baseFeePerGas} wei; ` +
          `${bundles.length} bundles carried ${receipts.length} ops; ${pool.seen.size} bundle transactions seen waiting`,
      );
    } finally {
      await producer.stop();
      await pool.stop();
    }
  }, 180_000);
});
