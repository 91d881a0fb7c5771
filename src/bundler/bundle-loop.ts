import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Hex } from 'viem';
import { networkKey } from '../chains/network-key.ts';
import { publicClientFor } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';
import { createL1FeeOracle } from '../gas/l1-fee/l1-fee-oracle.ts';
import { inRootSpan, setSpanAttributes, tracingOn } from '../tracing/tracing.ts';
import { bundleAlone } from './bundle-alone.ts';
import { readWaitingOps, selectBatch } from './bundle-batch.ts';
import { createBundleClaims } from './bundle-claims.ts';
import type { BundleContext } from './bundle-context.ts';
import { createExecutorBalanceWatch, createExecutors, type Executor } from './bundle-executors.ts';
import { createL1Holds } from './bundle-l1-fee.ts';
import { createBundleRounds } from './bundle-rounds.ts';
import { resumeSubmittedBundles } from './bundle-settlement.ts';
import { followBundlerLease } from './bundler-lease.ts';
import { registerMempoolGauge } from './mempool-gauge.ts';
import { createMempoolRevalidation } from './mempool-revalidation.ts';
import { createRecentBaseFee } from './recent-base-fee.ts';
import { createReputationStore } from './reputation-store.ts';
import { type SendBundleContext, sendBundle } from './send-bundle.ts';

const pollMs = 250;
/** Ops arriving together go in one bundle: wait this long after the first before bundling. */
const gatherMs = 2;

export interface BundleLoop {
  poke(): void;
  /** `manual`: bundles go out only on `bundleNow` (ERC-7769 debug_bundler_setBundlingMode). */
  setMode(mode: 'auto' | 'manual'): void;
  /** Bundles what is pending now; the bundle transaction's hash, or undefined when nothing was pending. */
  bundleNow(): Promise<Hex | undefined>;
  /**
   * Bundles the given ops by themselves, at once, on the first free executor: they and their senders
   * are kept out of the loop's own bundles from before `admit` puts them in the mempool until their
   * receipts are recorded. The bundle transaction's hash, or undefined when the EntryPoint refused them
   * all (each then failed with its reason).
   */
  bundleAlone(ops: readonly { hash: string; sender: string }[], admit: () => Promise<void>): Promise<Hex | undefined>;
  /** Whether this process holds the network's bundler lease: another process bundles until it does. */
  readonly active: boolean;
  close(): Promise<void>;
}

export interface BundleLoopDeps {
  db: Kysely<Tables>;
  /** The database's URL: the bundler lease holds a connection of its own. */
  databaseUrl: string;
  network: Network;
  executorKeys: readonly Hex[];
  maxBundleOps: number;
  logger: Logger;
  registry: Registry;
  /** The bundle landed: the proxy's head-dependent answers (eth_getCode, balances) must not predate it. */
  chainChanged?: () => Promise<void>;
}

/**
 * The bundler of one network (one active process per network, through a lease like the indexer's):
 * takes pending ops from the mempool (each sender's consecutive nonces from its lowest, in nonce
 * order, one EntryPoint per bundle: bundle-batch.ts), drops any the EntryPoint refuses (handleOps'
 * FailedOp in the gas estimate) and bundles again, sends handleOps from an executor key, and records
 * each op's receipt from its UserOperationEvent (send-bundle.ts). Ops in the table survive restarts;
 * a bundle sent before one is checked again (bundle-settlement.ts).
 */
export function startBundleLoop(deps: BundleLoopDeps): BundleLoop {
  const name = networkKey(deps.network);
  const ctx: BundleContext = {
    db: deps.db,
    client: publicClientFor(deps.network),
    network: deps.network,
    name,
    logger: deps.logger,
    reputation: createReputationStore(deps.db),
  };
  registerMempoolGauge(deps.registry, deps.db, name);
  const executors = createExecutors(deps.network, deps.executorKeys);
  const claims = createBundleClaims();
  const recentBaseFee = createRecentBaseFee();
  const l1Holds = createL1Holds();
  const watchBalance = createExecutorBalanceWatch({ ...ctx, registry: deps.registry });
  let closed = false;
  let active = false;
  /** Held leases lost so far: a bundle prepared across a loss is not sent. */
  let leaseLosses = 0;
  let timer: NodeJS.Timeout | undefined;
  const sendContext: SendBundleContext = {
    ...ctx,
    leaseLosses: () => leaseLosses,
    sent: (txHash) => rounds.sent(txHash),
    chainChanged: deps.chainChanged,
    watchBalance,
    l1Fee: createL1FeeOracle({
      client: ctx.client,
      feeModel: deps.network.config.feeModel,
      head: () => deps.network.pool.tip.value,
    }),
    l1Holds,
  };
  const bundleWith = (executor: Executor, rows: UserOperationRow[]) =>
    tracingOn() ? sendBundleTraced(sendContext, executor, rows) : sendBundle(sendContext, executor, rows);
  // A sender held by a bundle of this process: its submitted ops are that bundle's (one swapped in is not claimed by hash).
  const resumeSubmitted = () => resumeSubmittedBundles(ctx, (row) => claims.holdsOpOrSender(row));
  const rounds = createBundleRounds({
    executors,
    claims,
    loadBatch: () =>
      selectBatch({
        ctx,
        claims,
        recentBaseFee,
        maxBundleOps: deps.maxBundleOps,
        held: (row) => l1Holds.isHeld(row, deps.network.pool.tip.value),
      }),
    bundleWith,
    resumeSubmitted,
    revalidate: createMempoolRevalidation(ctx, (limit) => readWaitingOps(ctx, claims, limit)),
    isBundling: () => active && !closed,
    logger: deps.logger,
    name,
  });

  /** The lease is held: bundles sent before are checked, then the rounds run until the lease ends. */
  async function startActive() {
    active = true;
    await resumeSubmitted().catch((error: unknown) =>
      deps.logger.warn({ err: error }, 'could not check bundles sent before the restart'),
    );
    if (!active || closed) return;
    timer = setInterval(rounds.run, pollMs);
    for (const executor of executors)
      await watchBalance(executor).catch((error: unknown) => deps.logger.warn({ err: error }, 'executor balance unknown'));
    rounds.run();
  }
  const lease = followBundlerLease({
    databaseUrl: deps.databaseUrl,
    registry: deps.registry,
    name,
    logger: deps.logger,
    isClosed: () => closed,
    onHeld: startActive,
    onEnded: (held) => {
      if (held) leaseLosses++;
      active = false;
      clearInterval(timer);
    },
  });

  return {
    poke() {
      setTimeout(rounds.run, gatherMs);
    },
    setMode: rounds.setMode,
    bundleNow: rounds.bundleNow,
    get active() {
      return active && !closed;
    },
    bundleAlone: (ops, admit) =>
      bundleAlone({
        ops,
        admit,
        claim: claims.claim,
        conflictsWithClaimed: claims.conflictsWithClaimed,
        load: (hashes) => deps.db.selectFrom('user_operations').selectAll().where('hash', 'in', hashes).execute(),
        executors,
        bundleWith,
        isClosed: () => closed || !active,
        inFlight: rounds.inFlight,
      }),
    async close() {
      closed = true;
      clearInterval(timer);
      await rounds.idle();
      await lease.release();
      await lease.following;
    },
  };
}

/**
 * One bundle in a span (tracing on): the network, the EntryPoint, how many ops, the executor, and the
 * transaction once mined; its chain calls (estimates, the send, the receipt) are attempts inside it.
 */
function sendBundleTraced(ctx: SendBundleContext, executor: Executor, rows: UserOperationRow[]): Promise<Hex | undefined> {
  const attributes = {
    'blockyard.network': ctx.name,
    'blockyard.bundle.entry_point': rows[0]?.entry_point ?? '',
    'blockyard.bundle.ops': rows.length,
    'blockyard.bundle.executor': executor.account.address,
  };
  return inRootSpan('bundler bundle', attributes, async () => {
    const mined = await sendBundle(ctx, executor, rows);
    setSpanAttributes(
      mined === undefined ? { 'blockyard.bundle.sent': false } : { 'blockyard.bundle.sent': true, 'blockyard.bundle.tx': mined },
    );
    return mined;
  });
}
