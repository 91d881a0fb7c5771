import { type Address, encodeFunctionData, type Hex, type SignedAuthorization } from 'viem';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import { l1FeeWeiOf } from '../gas/l1-fee/l1-cost.ts';
import type { L1FeeOracle } from '../gas/l1-fee/l1-fee-oracle.ts';
import type { BundleContext } from './bundle-context.ts';
import { estimateDroppingRefused } from './bundle-estimate.ts';
import type { Executor } from './bundle-executors.ts';
import { feesOfRow, firstBundleFees, type PendingBlockFees, paysNextBlock, readPendingBlockFees } from './bundle-fees.ts';
import { type L1Holds, rowsPayingL1Fee } from './bundle-l1-fee.ts';
import { receiptTimeoutMs, settleBundle } from './bundle-settlement.ts';
import { markFailed, markSubmitted, returnToMempool } from './bundle-status.ts';
import { submitBundle } from './bundle-submission.ts';
import { swapReplacedOps } from './bundle-swap.ts';
import { planAuthorizations } from './eip7702-chain.ts';
import { handleOpsCall, opOfRow } from './handle-ops-call.ts';
import { bundleTransactionOf } from './handle-ops-transaction.ts';
import { findUserOperationEvent } from './known-ops.ts';
import { applyRefusalReputation } from './refusal-reputation.ts';
import { shortMessage } from './simulation.ts';
import type { EntryPointVersion } from './user-operation.ts';

/** Replacements of a bundle not mined (each +10% or more), then its last transaction is waited for. */
const maxReplacements = 10;

export interface SendBundleContext extends BundleContext {
  /** Held bundler leases lost so far: a bundle prepared across a loss is not sent. */
  leaseLosses(): number;
  /** A bundle transaction went out (the first, or a replacement). */
  sent(txHash: Hex): void;
  /** The bundle landed: the proxy's head-dependent answers (eth_getCode, balances) must not predate it. */
  chainChanged?: () => Promise<void>;
  watchBalance(executor: Executor): Promise<void>;
  /** The network's L1 fee oracle (rollups), and the ops the L1 check held back until the next head. */
  readonly l1Fee: L1FeeOracle;
  readonly l1Holds: L1Holds;
}

/**
 * One bundle of the given ops (one EntryPoint) from one executor: estimate (dropping ops the EntryPoint
 * refuses), send, watch until mined, record receipts. The bundle transaction's hash once mined;
 * undefined when no op was left to send.
 */
export async function sendBundle(
  ctx: SendBundleContext,
  executor: Executor,
  batch: UserOperationRow[],
): Promise<Hex | undefined> {
  const { client, logger, name } = ctx;
  const lossesAtStart = ctx.leaseLosses();
  const entryPoint = batch[0]!.entry_point as Address;
  const version = batch[0]!.entry_point_version as EntryPointVersion;
  // EIP-7702 ops: the authorizations the bundle carries (type 4), and those that can no longer apply.
  const authorizations = await planAuthorizations(client, batch.map(opOfRow));
  for (const [index, reason] of authorizations.refused) await markFailed(ctx, batch[index]!, reason);
  let needed = authorizations.needed;
  const call = (of: readonly UserOperationRow[]) =>
    handleOpsCall(
      entryPoint,
      version,
      of,
      executor.account.address,
      of.flatMap((row) => needed.get(row.sender.toLowerCase()) ?? []),
    );
  // The executor's next nonce, asked while the bundle's gas is estimated.
  const pendingNonce = client.getTransactionCount({ address: executor.account.address, blockTag: 'pending' });
  pendingNonce.catch(() => undefined);
  const estimated = await estimateDroppingRefused(
    ctx,
    batch.filter((_, index) => !authorizations.refused.has(index)),
    (of) => client.estimateContractGas({ ...call(of), account: executor.account }),
    async (row) => {
      const landed = await findUserOperationEvent(client, { version, address: entryPoint }, row.hash as Hex);
      if (landed) await settleBundle(ctx, [row], landed.transactionHash, entryPoint, version);
      return landed !== undefined;
    },
    (row, reason, refusedAlone) => applyRefusalReputation(ctx, row, reason, refusedAlone),
  );
  if (estimated === undefined) return undefined;
  // The next block's fees, read after the estimate (as close to the send as can be: a block mined
  // between them would be a target with a higher base fee). An op that cannot pay them waits in the
  // mempool (the batch was chosen with a base fee up to 500 ms old); the gas estimated with it is
  // enough for the others.
  const pending = await readPendingBlockFees(client, ctx.network.config.minPriorityFeeWei);
  const rows = estimated.rows.filter((row) => paysNextBlock(feesOfRow(row), pending));
  if (rows.length === 0) return undefined;
  const nonce = await pendingNonce;
  // The lease was lost while this bundle was prepared: another process may be bundling these ops now.
  if (ctx.leaseLosses() !== lossesAtStart) {
    logger.warn(
      { network: name, ops: rows.length },
      'bundler lease lost before sending: bundle not sent, its ops left to the holder',
    );
    return undefined;
  }
  const payingL1 = await opsPayingL1Fee(ctx, executor, {
    rows,
    call,
    gas: (estimated.gas * 12n) / 10n,
    nonce,
    pending,
  });
  if (payingL1 === undefined) return undefined;
  const { rows: paying } = payingL1;
  let gasLimit = payingL1.gasLimit;
  const mined = await submitBundle<UserOperationRow>({
    client,
    logger,
    minTip: ctx.network.config.minPriorityFeeWei,
    rows: paying,
    feesOf: feesOfRow,
    first: { fees: firstBundleFees(paying.map(feesOfRow), pending), pending },
    send: (of, fees) => executor.wallet.writeContract({ ...call(of), gas: gasLimit, nonce, ...fees }),
    cancel: (fees) => executor.wallet.sendTransaction({ to: executor.account.address, value: 0n, gas: 21_000n, nonce, ...fees }),
    onSent: async (txHash, of, replaces) => {
      ctx.sent(txHash);
      if (of.length > 0) await markSubmitted(ctx.db, of, txHash);
      if (!replaces)
        logger.info({ network: name, ops: of.length, tx: txHash, executor: executor.account.address }, 'bundle sent');
    },
    stuckAfterMs: Math.max(5_000, ctx.network.config.blockTimeS * 3_000),
    maxReplacements,
    receiptTimeoutMs,
    // An op replaced by its sender while the bundle waits: the bundle is sent again with the new op,
    // its gas and authorizations as the new ops need (not swapped when they no longer validate together).
    swap: async (of) => {
      const swapped = await swapReplacedOps(ctx.db, of);
      if (!swapped) return undefined;
      const plan = await planAuthorizations(client, swapped.map(opOfRow));
      if (plan.refused.size > 0) return undefined;
      const previous = needed;
      needed = plan.needed;
      try {
        // Against the latest block: the pending one holds the bundle being replaced, which used the nonces.
        const gas = await client.estimateContractGas({ ...call(swapped), account: executor.account, blockTag: 'latest' });
        gasLimit = (gas * 12n) / 10n;
        return swapped;
      } catch (error) {
        needed = previous;
        logger.warn(
          { network: name, reason: shortMessage(error) },
          'a replaced op was not swapped into its bundle: the bundle with it goes on',
        );
        return undefined;
      }
    },
  });
  // Ops left out of the transaction that was mined (a replacement without them, a cancellation) wait again.
  await returnToMempool(
    ctx.db,
    mined.sent.filter((row) => !mined.rows.includes(row)),
  );
  if (mined.rows.length > 0) {
    // Before receipts are recorded (clients wait for those), so a client that sees one reads the new state.
    await ctx.chainChanged?.().catch(() => undefined);
    await settleBundle(ctx, mined.rows, mined.hash, entryPoint, version);
  }
  await ctx.watchBalance(executor);
  return mined.rows.length > 0 ? mined.hash : undefined;
}

/**
 * The L1 check before a bundle goes out (rollups): the ops left that pay for the L1 fee of the signed
 * bundle (the others wait for the next block), and the gas limit, which on Arbitrum also holds the L1
 * part (charged as the transaction's gas). Undefined when no op is left.
 */
async function opsPayingL1Fee(
  ctx: SendBundleContext,
  executor: Executor,
  bundle: {
    rows: UserOperationRow[];
    call: (of: readonly UserOperationRow[]) => ReturnType<typeof handleOpsCall>;
    gas: bigint;
    nonce: number;
    pending: PendingBlockFees;
  },
): Promise<{ rows: UserOperationRow[]; gasLimit: bigint } | undefined> {
  const { rows, call, gas, nonce, pending } = bundle;
  if (!ctx.l1Fee.charged) return { rows, gasLimit: gas };
  const entryPoint = rows[0]!.entry_point as Address;
  const signed = async (of: readonly UserOperationRow[]) => {
    const data = encodeFunctionData(call(of));
    const { authorizationList } = call(of) as { authorizationList?: SignedAuthorization[] };
    const envelope = {
      chainId: ctx.network.config.chainId,
      nonce,
      gas,
      ...firstBundleFees(of.map(feesOfRow), pending),
      authorizationList,
    };
    const serialized = await executor.account.signTransaction(bundleTransactionOf(entryPoint, data, envelope));
    return { to: entryPoint, data, serialized };
  };
  const check = {
    oracle: ctx.l1Fee,
    version: rows[0]!.entry_point_version as EntryPointVersion,
    nextBaseFee: pending.nextBaseFee,
    signed,
  };
  const l1 = await rowsPayingL1Fee(check, rows);
  if (l1.held.length > 0) {
    ctx.l1Holds.hold(l1.held, ctx.network.pool.tip.value);
    ctx.logger.info(
      { network: ctx.name, held: l1.held.length, l1FeeWei: l1FeeWeiOf(l1.cost).toString() },
      "ops held until the next block: their preVerificationGas does not cover their share of the bundle's L1 fee now",
    );
  }
  if (l1.paying.length === 0) return undefined;
  return { rows: l1.paying, gasLimit: gas + (l1.cost.model === 'arbitrum' ? l1.cost.l1Gas : 0n) };
}
