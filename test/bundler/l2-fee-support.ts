import { pino } from 'pino';
import {
  type Address,
  createPublicClient,
  type Hex,
  http,
  type PublicClient,
  parseEther,
  parseEventLogs,
  serializeTransaction,
  type Transaction,
} from 'viem';
import { entryPoint07Abi, entryPoint07Address } from 'viem/account-abstraction';
import { foundry } from 'viem/chains';
import { devnetExecutorKeys } from '../../src/bundler/executor-keys.ts';
import { type Devnet, startDevnet } from '../../src/chains/devnet.ts';
import type { FeeModel } from '../../src/config/network-presets.ts';
import { installErc4337Contracts } from '../../src/erc4337/contracts/install.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { devnetChain, startTestService, type TestService } from '../support/service.ts';
import { bundlerClientFor, bundlerUrlOf, callBundler, fund, newSimpleAccount } from './support.ts';

/** An L2 price as on a rollup: a 0.01 gwei tip over a base fee of 0 (anvil's stays 0 under light blocks), so it holds still. */
export const l2Fees = { maxFeePerGas: 20_000_000n, maxPriorityFeePerGas: 10_000_000n };

export interface RollupDevnet {
  service: TestService;
  anvil: Devnet;
  database: TestDatabase;
  key: string;
  publicClient: PublicClient;
  stop(): Promise<void>;
}

/**
 * The service with its bundler on an anvil configured as a rollup (`fee_model`), the ERC-4337
 * contracts installed, and `install` making the anvil answer the rollup's L1 fee contracts. anvil's
 * base fee is 0 (the L2 price is the tip alone); `anvilArgs`: more of anvil's flags.
 */
export async function startRollupDevnet(
  feeModel: FeeModel,
  install: (anvilUrl: string) => Promise<void>,
  options: { anvilArgs?: string[]; settings?: Record<string, unknown>; chainSettings?: Record<string, unknown> } = {},
): Promise<RollupDevnet> {
  const anvil = await startDevnet({
    logger: pino({ level: 'silent' }),
    extraArgs: ['--base-fee', '0', ...(options.anvilArgs ?? [])],
  });
  const database = await createTestDatabase();
  const stopParts = () => Promise.all([anvil.stop(), database.close()]);
  try {
    await installErc4337Contracts(anvil.url);
    await install(anvil.url);
    const service = await startTestService({
      sharing: { anvil, database },
      settings: { bundler_keys: devnetExecutorKeys[0], ...options.settings },
      chainsFor: (url) => [devnetChain(url, { bundler: { enabled: true }, fee_model: feeModel, ...options.chainSettings })],
    });
    const key = (await service.createKey()).key;
    const publicClient = createPublicClient({ chain: foundry, transport: http(anvil.url) }) as PublicClient;
    return {
      service,
      anvil,
      database,
      key,
      publicClient,
      async stop() {
        await service.stop();
        await stopParts();
      },
    };
  } catch (error) {
    await stopParts();
    throw error;
  }
}

/** One bundle as the chain recorded it, and what the executor was paid in it. */
export interface LandedBundle {
  transaction: Transaction;
  /** The bundle exactly as it was sent, signed. */
  signedSerialized: Hex;
  gasUsed: bigint;
  effectiveGasPrice: bigint;
  blockNumber: bigint;
  /** The ops' actualGasCost summed: what the EntryPoint paid the beneficiary (the executor). */
  paidToBeneficiary: bigint;
  ops: { hash: Hex; actualGasCost: bigint; actualGasUsed: bigint; preVerificationGas: bigint; op: Record<string, string> }[];
}

/**
 * Sends `count` ops through the bundler, each after the previous one landed (one bundle each): SimpleAccounts
 * of fresh owners, `opsPerAccount` each (the first deploys it), every op a small ETH transfer.
 */
export async function sendOpsOneBundleEach(
  rollup: RollupDevnet,
  count: number,
  options: { opsPerAccount?: number; entryPointVersion?: '0.7' | '0.8' } = {},
): Promise<Hex[]> {
  const { opsPerAccount = 5, entryPointVersion = '0.7' } = options;
  const url = bundlerUrlOf(rollup.service.url);
  const bundler = bundlerClientFor(url, rollup.key, rollup.publicClient);
  const hashes: Hex[] = [];
  for (let sent = 0; sent < count; ) {
    const account = await newSimpleAccount(rollup.publicClient, undefined, entryPointVersion);
    await fund(rollup.anvil.url, [account.address], parseEther('1'));
    for (let index = 0; index < opsPerAccount && sent < count; index++, sent++) {
      const hash = await bundler.sendUserOperation({
        account,
        calls: [{ to: '0x000000000000000000000000000000000000dEaD', value: 1_000n + BigInt(sent) }],
        ...l2Fees,
      });
      await bundler.waitForUserOperationReceipt({ hash, timeout: 20_000, pollingInterval: 100 });
      hashes.push(hash);
    }
  }
  return hashes;
}

/** The bundles that carried these ops, read back from the chain and the bundler. */
export async function landedBundles(rollup: RollupDevnet, opHashes: readonly Hex[]): Promise<LandedBundle[]> {
  const url = bundlerUrlOf(rollup.service.url);
  const byTransaction = new Map<Hex, Hex[]>();
  for (const hash of opHashes) {
    const { result } = await callBundler(url, rollup.key, 'eth_getUserOperationReceipt', [hash]);
    const tx = result.receipt.transactionHash as Hex;
    byTransaction.set(tx, [...(byTransaction.get(tx) ?? []), hash]);
  }
  const bundles: LandedBundle[] = [];
  for (const [txHash, hashes] of byTransaction) {
    const [transaction, receipt] = await Promise.all([
      rollup.publicClient.getTransaction({ hash: txHash }),
      rollup.publicClient.getTransactionReceipt({ hash: txHash }),
    ]);
    const events = parseEventLogs({ abi: entryPoint07Abi, logs: receipt.logs, eventName: 'UserOperationEvent' });
    const ops = await Promise.all(
      hashes.map(async (hash) => {
        const event = events.find((log) => log.args.userOpHash.toLowerCase() === hash.toLowerCase())!;
        const { result } = await callBundler(url, rollup.key, 'eth_getUserOperationByHash', [hash]);
        return {
          hash,
          actualGasCost: event.args.actualGasCost,
          actualGasUsed: event.args.actualGasUsed,
          preVerificationGas: BigInt(result.userOperation.preVerificationGas),
          op: result.userOperation as Record<string, string>,
        };
      }),
    );
    bundles.push({
      transaction,
      signedSerialized: signedSerializationOf(transaction),
      gasUsed: receipt.gasUsed,
      effectiveGasPrice: receipt.effectiveGasPrice,
      blockNumber: receipt.blockNumber,
      paidToBeneficiary: events.reduce((sum, log) => sum + log.args.actualGasCost, 0n),
      ops,
    });
  }
  return bundles;
}

/** A mined transaction serialized again with its signature: the bytes the sequencer posted. */
function signedSerializationOf(transaction: Transaction): Hex {
  const { r, s, yParity } = transaction;
  const fields = {
    chainId: transaction.chainId!,
    nonce: transaction.nonce,
    gas: transaction.gas,
    maxFeePerGas: transaction.maxFeePerGas!,
    maxPriorityFeePerGas: transaction.maxPriorityFeePerGas!,
    to: transaction.to as Address,
    value: transaction.value,
    data: transaction.input,
    accessList: transaction.accessList ?? [],
  };
  return serializeTransaction({ type: 'eip1559', ...fields }, { r, s, yParity: yParity ?? 0 });
}

export { entryPoint07Address };
