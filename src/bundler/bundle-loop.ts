import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import {
  type Address,
  type Chain,
  createWalletClient,
  type Hex,
  type PublicClient,
  parseEventLogs,
  type Transport,
  type WalletClient,
} from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { chainOf, poolTransport, publicClientFor } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';
import { entryPointV06Abi, entryPointV07Abi } from '../erc4337/contracts/abis.ts';
import { acquireIndexerLease, type IndexerLease } from '../indexer/leader-lease.ts';
import { bundleAlone } from './bundle-alone.ts';
import { feesOfRow, firstBundleFees, paysNextBlock, readPendingBlockFees } from './bundle-fees.ts';
import { markSubmitted, returnToMempool } from './bundle-status.ts';
import { submitBundle } from './bundle-submission.ts';
import { type CodeHashes, changedCode, currentCodeHashes } from './code-hashes.ts';
import { delegationOverride } from './eip7702-authorization.ts';
import { planAuthorizations, withAuthorizations } from './eip7702-chain.ts';
import { registerMempoolGauge } from './mempool-gauge.ts';
import { createRecentBaseFee } from './recent-base-fee.ts';
import { createReputationStore } from './reputation-store.ts';
import { BundlerRpcError, explainAaReason, signatureFailure } from './rpc-errors.ts';
import { revertOf, shortMessage, simulateValidation, v06Struct } from './simulation.ts';
import { type EntryPointVersion, parseUserOperation } from './user-operation.ts';
import { userOperationReceipt } from './user-operation-receipt.ts';

const pollMs = 250;
/** Ops arriving together go in one bundle: wait this long after the first before bundling. */
const gatherMs = 2;
const receiptTimeoutMs = 60_000;
/** Pause before asking again for a lease that was lost. */
const leaseRetryMs = 1_000;
/** Replacements of a bundle not mined (each +10% or more), then its last transaction is waited for. */
const maxReplacements = 10;
/** Below this an executor is warned about: a bundle of a few ops costs around 0.001 ETH at 1 gwei. */
const lowBalanceWei = 10n ** 17n;

interface Executor {
  readonly account: PrivateKeyAccount;
  readonly wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
  busy: boolean;
  warnedLow: boolean;
}

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

/**
 * The bundler of one network (one active process per network, through a lease like the indexer's):
 * takes pending ops from the mempool (each sender's consecutive nonces from its lowest, in nonce
 * order, one EntryPoint per bundle), drops any the EntryPoint refuses (handleOps' FailedOp in the gas estimate) and
 * bundles again, sends handleOps from an executor key, and records each op's receipt from its
 * UserOperationEvent. Ops in the table survive restarts; a bundle sent before one is checked again.
 */
export function startBundleLoop(deps: {
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
}): BundleLoop {
  const { db, network, logger } = deps;
  const name = `${network.config.chain}/${network.config.network}`;
  const client: PublicClient = publicClientFor(network);
  const executors: Executor[] = deps.executorKeys.map((key) => {
    const account = privateKeyToAccount(key);
    return {
      account,
      wallet: createWalletClient({ account, chain: chainOf(network), transport: poolTransport(network) }),
      busy: false,
      warnedLow: false,
    };
  });
  const recentBaseFee = createRecentBaseFee();
  const reputation = createReputationStore(db);
  const balanceGauge =
    (deps.registry.getSingleMetric('blockyard_bundler_executor_balance_wei') as Gauge<'network' | 'executor'> | undefined) ??
    new Gauge({
      name: 'blockyard_bundler_executor_balance_wei',
      help: "The bundler's executor balance, by network and executor address",
      labelNames: ['network', 'executor'],
      registers: [deps.registry],
    });
  registerMempoolGauge(deps.registry, db, name);
  async function watchBalance(executor: Executor) {
    const balance = await client.getBalance({ address: executor.account.address });
    balanceGauge.set({ network: name, executor: executor.account.address }, Number(balance));
    if (balance < lowBalanceWei && !executor.warnedLow) {
      logger.warn(
        { network: name, executor: executor.account.address, balanceWei: balance.toString() },
        'bundler executor balance is low: fund it or bundles stop',
      );
    }
    executor.warnedLow = balance < lowBalanceWei;
  }
  let closed = false;
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let mode: 'auto' | 'manual' = 'auto';
  let lastBundle: Hex | undefined;
  /** Ops (by hash) and senders in a bundle this process is sending or waiting for: no second bundle takes them. */
  const inFlightOps = new Set<string>();
  const inFlightSenders = new Map<string, number>();
  let bundlesInFlight = 0;
  let revalidatedAt = -1n;

  /** Pending ops that no bundle of this process holds (nor their sender), oldest first. */
  async function waitingOps(limit: number): Promise<UserOperationRow[]> {
    const rows = await db
      .selectFrom('user_operations')
      .selectAll()
      .where('network', '=', name)
      .where('status', '=', 'pending')
      .orderBy('created_at')
      .limit(limit)
      .execute();
    return rows.filter((row) => !inFlightOps.has(row.hash) && !inFlightSenders.has(row.sender));
  }

  async function loadBatch(): Promise<UserOperationRow[]> {
    const [rows, nextBaseFee] = await Promise.all([waitingOps(deps.maxBundleOps * 4), recentBaseFee(client)]);
    const entryPoint = rows[0]?.entry_point;
    // A sender's run stops at its first op that cannot pay the next block: the later ones wait with it.
    const paysNext = (row: UserOperationRow) => paysNextBlock(feesOfRow(row), { nextBaseFee: nextBaseFee ?? 0n });
    return queuedRunsInNonceOrder(
      rows.filter((row) => row.entry_point === entryPoint),
      paysNext,
    ).slice(0, deps.maxBundleOps);
  }

  const opOf = (row: UserOperationRow) => parseUserOperation(row.entry_point_version, row.op);
  const handleOpsArgs = (rows: UserOperationRow[]) =>
    rows.map((row) => {
      const op = opOf(row);
      return row.entry_point_version === '0.7' ? toPackedUserOperation(op as UserOperation<'0.7'>) : v06Struct(op);
    });

  async function fail(row: UserOperationRow, reason: string) {
    await db
      .updateTable('user_operations')
      .set({ status: 'failed', reason, updated_at: new Date() })
      .where('hash', '=', row.hash)
      .execute();
    logger.info({ userOpHash: row.hash, reason }, 'user operation dropped');
  }

  /**
   * One bundle of the given ops from one executor: estimate (dropping ops the EntryPoint refuses), send,
   * wait, record receipts. The bundle transaction's hash, once mined (undefined: every op was refused).
   */
  async function bundleWith(executor: Executor, batch: UserOperationRow[]): Promise<Hex | undefined> {
    const lossesAtStart = leaseLosses;
    let rows = batch;
    const entryPoint = rows[0]!.entry_point as Address;
    const version = rows[0]!.entry_point_version as EntryPointVersion;
    const abi = version === '0.7' ? entryPointV07Abi : entryPointV06Abi;
    // EIP-7702 ops: the authorizations the bundle carries (type 4), and those that can no longer apply.
    const authorizations = await planAuthorizations(client, rows.map(opOf));
    for (const [index, reason] of authorizations.refused) await fail(rows[index]!, reason);
    rows = rows.filter((_, index) => !authorizations.refused.has(index));
    const authorizationList = (of: UserOperationRow[]) =>
      of.flatMap((row) => authorizations.needed.get(row.sender.toLowerCase()) ?? []);
    // The executor's next nonce, asked while the bundle's gas is estimated.
    const pendingNonce = client.getTransactionCount({ address: executor.account.address, blockTag: 'pending' });
    pendingNonce.catch(() => undefined);
    let gas: bigint | undefined;
    while (rows.length > 0 && gas === undefined) {
      try {
        gas = await client.estimateContractGas({
          address: entryPoint,
          abi: abi as typeof entryPointV07Abi,
          functionName: 'handleOps',
          args: [handleOpsArgs(rows) as never, executor.account.address],
          account: executor.account,
          ...withAuthorizations(authorizationList(rows)),
        });
      } catch (error) {
        const reverted = revertOf(error);
        if (reverted?.errorName === 'FailedOp' || reverted?.errorName === 'FailedOpWithRevert') {
          const index = Number(reverted.args?.[0] ?? 0);
          const bad = rows[index];
          if (!bad) throw error;
          await fail(bad, explainAaReason(String(reverted.args?.[1] ?? 'refused by the EntryPoint')));
          rows = rows.filter((row) => row !== bad);
          continue;
        }
        throw error;
      }
    }
    if (rows.length === 0 || gas === undefined) return undefined;
    // The next block's fees, read after the estimate (as close to the send as can be: a block mined
    // between them would be a target with a higher base fee). An op that cannot pay them waits in the
    // mempool (the batch was chosen with a base fee up to 500 ms old); the gas estimated with it is
    // enough for the others.
    const pending = await readPendingBlockFees(client);
    rows = rows.filter((row) => paysNextBlock(feesOfRow(row), pending));
    if (rows.length === 0) return undefined;
    const nonce = await pendingNonce;
    // The lease was lost while this bundle was prepared: another process may be bundling these ops now.
    if (leaseLosses !== lossesAtStart) {
      logger.warn(
        { network: name, ops: rows.length },
        'bundler lease lost before sending: bundle not sent, its ops left to the holder',
      );
      return undefined;
    }
    const gasLimit = (gas * 12n) / 10n;
    const mined = await submitBundle<UserOperationRow>({
      client,
      logger,
      rows,
      feesOf: feesOfRow,
      first: { fees: firstBundleFees(rows.map(feesOfRow), pending), pending },
      send: (of, fees) =>
        executor.wallet.writeContract({
          address: entryPoint,
          abi: abi as typeof entryPointV07Abi,
          functionName: 'handleOps',
          args: [handleOpsArgs(of) as never, executor.account.address],
          gas: gasLimit,
          nonce,
          ...fees,
          ...withAuthorizations(authorizationList(of)),
        }),
      cancel: (fees) =>
        executor.wallet.sendTransaction({ to: executor.account.address, value: 0n, gas: 21_000n, nonce, ...fees }),
      onSent: async (txHash, of, replaces) => {
        lastBundle = txHash;
        if (of.length > 0) await markSubmitted(db, of, txHash);
        if (!replaces)
          logger.info({ network: name, ops: of.length, tx: txHash, executor: executor.account.address }, 'bundle sent');
      },
      stuckAfterMs: Math.max(5_000, network.config.blockTimeS * 3_000),
      maxReplacements,
      receiptTimeoutMs,
    });
    // Ops left out of the transaction that was mined (a replacement without them, a cancellation) wait again.
    await returnToMempool(
      db,
      rows.filter((row) => !mined.rows.includes(row)),
    );
    if (mined.rows.length > 0) {
      // Before receipts are recorded (clients wait for those), so a client that sees one reads the new state.
      await deps.chainChanged?.().catch(() => undefined);
      await settle(mined.rows, mined.hash, entryPoint, version);
    }
    await watchBalance(executor);
    return mined.rows.length > 0 ? mined.hash : undefined;
  }

  /** Marks ops as taken by a bundle of this process until `release`. */
  function claim(rows: readonly Pick<UserOperationRow, 'hash' | 'sender'>[]) {
    for (const row of rows) {
      inFlightOps.add(row.hash);
      inFlightSenders.set(row.sender, (inFlightSenders.get(row.sender) ?? 0) + 1);
    }
    return () => {
      for (const row of rows) {
        inFlightOps.delete(row.hash);
        const left = (inFlightSenders.get(row.sender) ?? 1) - 1;
        if (left <= 0) inFlightSenders.delete(row.sender);
        else inFlightSenders.set(row.sender, left);
      }
    };
  }

  /**
   * After each new block, the next op of each sender that has waited a block is checked again: an op
   * whose nonce was used meanwhile (by another bundler, or a replaced op), whose validation's code
   * changed (COD-010) or that no longer validates (its signature, prefund or time range) leaves the
   * mempool with the reason, instead of waiting.
   */
  async function revalidate() {
    const head = await client.getBlockNumber({ cacheTime: 0 });
    if (head === revalidatedAt) return;
    revalidatedAt = head;
    const waiting = await waitingOps(200);
    if (waiting.length === 0) return;
    // created_at is the database's time (another process wrote it): compared with the database's clock.
    const { rows: clock } = await sql<{ now_ms: number }>`select (extract(epoch from now()) * 1000)::float8 as now_ms`.execute(
      db,
    );
    const before = clock[0]!.now_ms - Math.max(1_000, network.config.blockTimeS * 1_000);
    const waited = waiting.filter((row) => new Date(row.created_at).getTime() <= before);
    // An op checked at send is looked at again once it has waited a block.
    if (waited.length < waiting.length) revalidatedAt = -1n;
    const next = nextOfEachSender(waited);
    // An op's time range is checked on chain against block timestamps: so is it here, not this host's clock.
    let chainNowS: number | undefined;
    const chainNow = async () => {
      chainNowS ??= Number((await client.getBlock({ blockTag: 'latest' })).timestamp);
      return chainNowS;
    };
    // ERC-7562 COD-010: the code each op's first validation ran must still be there, in one call for all.
    const current = await currentCodeHashes(client, [...new Set(next.flatMap((row) => Object.keys(row.code_hashes ?? {})))]);
    for (const row of next) {
      const changed = row.code_hashes ? changedCode(row.code_hashes as CodeHashes, current) : undefined;
      if (changed) {
        await fail(row, `ERC-7562 COD-010: the code at ${changed} changed since the operation was validated`);
        continue;
      }
      const op = opOf(row);
      const onChain = await client.readContract({
        address: row.entry_point as Address,
        abi: entryPointV06Abi,
        functionName: 'getNonce',
        args: [op.sender, op.nonce >> 64n],
      });
      if (op.nonce < onChain) {
        await fail(
          row,
          `nonce ${op.nonce} was used on chain (by this operation or another of this sender, sent by another bundler)`,
        );
        continue;
      }
      if (op.nonce > onChain) continue; // waits for an earlier op not in this mempool
      try {
        const outcome = await simulateValidation(
          client,
          row.entry_point_version,
          row.entry_point as Address,
          op,
          delegationOverride(op),
        );
        if (outcome.sigFailed) await fail(row, `no longer valid: ${signatureFailure(outcome.sigFailedBy)}`);
        else if (outcome.validUntil < (await chainNow()))
          await fail(row, `expired: valid until ${outcome.validUntil} (Unix seconds)`);
      } catch (error) {
        if (error instanceof BundlerRpcError) await fail(row, `no longer valid: ${error.message}`);
        else throw error;
      }
    }
  }

  /** Waits for a bundle's receipt and records each op's outcome from its UserOperationEvent. */
  async function settle(rows: UserOperationRow[], txHash: Hex, entryPoint: Address, version: EntryPointVersion) {
    const receipt = await client.waitForTransactionReceipt({ hash: txHash, pollingInterval: 100, timeout: receiptTimeoutMs });
    const abi = version === '0.7' ? entryPointV07Abi : entryPointV06Abi;
    const events = parseEventLogs({ abi, logs: receipt.logs });
    for (const row of rows) {
      const event = events.find(
        (entry) => entry.eventName === 'UserOperationEvent' && entry.args.userOpHash.toLowerCase() === row.hash,
      );
      if (event?.eventName !== 'UserOperationEvent') {
        await fail(row, `not executed by bundle ${txHash} (status ${receipt.status})`);
        continue;
      }
      const revert = events.find(
        (entry) => entry.eventName === 'UserOperationRevertReason' && entry.args.userOpHash.toLowerCase() === row.hash,
      );
      await db
        .updateTable('user_operations')
        .set({
          status: 'included',
          tx_hash: txHash,
          block_number: receipt.blockNumber.toString(),
          block_hash: receipt.blockHash,
          receipt: JSON.stringify(
            userOperationReceipt(
              row,
              entryPoint,
              receipt,
              event.args,
              revert?.eventName === 'UserOperationRevertReason' ? revert.args.revertReason : undefined,
            ),
            (_key, value) => (typeof value === 'bigint' ? hex(value) : value),
          ),
          updated_at: new Date(),
        })
        .where('hash', '=', row.hash)
        .execute();
      await reputation.count(
        name,
        [row.factory, row.paymaster].filter((address): address is string => address !== null),
        'ops_included',
      );
    }
  }

  async function resumeSubmitted() {
    const submitted = await db
      .selectFrom('user_operations')
      .selectAll()
      .where('network', '=', name)
      .where('status', '=', 'submitted')
      .execute()
      .then((rows) => rows.filter((row) => !inFlightOps.has(row.hash)));
    for (const [txHash, rows] of Map.prototype.entries.call(groupByTx(submitted)) as IterableIterator<
      [string, UserOperationRow[]]
    >) {
      try {
        await settle(rows, txHash as Hex, rows[0]!.entry_point as Address, rows[0]!.entry_point_version);
      } catch (error) {
        logger.warn(
          { err: error, tx: txHash },
          'a bundle sent before the restart has no receipt: its ops go back to the mempool',
        );
        await db
          .updateTable('user_operations')
          .set({ status: 'pending', tx_hash: null })
          .where('tx_hash', '=', txHash)
          .where('status', '=', 'submitted')
          .execute();
      }
    }
  }

  /** Starts a bundle on each free executor while ops are waiting; each bundle, when done, looks again. */
  function run() {
    if (closed || !active) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    (async () => {
      do {
        again = false;
        // A bundle whose receipt was not recorded (an error after sending, a restart) is settled first.
        // The mode is read at each step: debug_bundler_setBundlingMode('manual') stops bundling at once.
        if (mode === 'auto') await resumeSubmitted();
        for (const executor of executors) {
          if (closed || !active || executor.busy || mode !== 'auto') continue;
          const rows = await loadBatch();
          if (rows.length === 0) break;
          void startBundle(executor, rows);
        }
        // After the bundles are on their way: it must not delay them.
        await revalidate();
      } while (again && !closed && active);
    })()
      .catch((error: unknown) =>
        logger.warn({ err: error, network: name, reason: shortMessage(error) }, 'bundling round failed; retried'),
      )
      .finally(() => {
        running = false;
      });
  }

  function startBundle(executor: Executor, rows: UserOperationRow[]): Promise<unknown> {
    executor.busy = true;
    bundlesInFlight++;
    const release = claim(rows);
    return bundleWith(executor, rows)
      .catch((error: unknown) =>
        logger.warn({ err: error, network: name, reason: shortMessage(error) }, 'bundle failed; its ops are tried again'),
      )
      .finally(() => {
        release();
        executor.busy = false;
        bundlesInFlight--;
        // More may be waiting: bundle again at once.
        if (mode === 'auto') run();
      });
  }

  const idle = async () => {
    while (running || bundlesInFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  let active = false;
  /** Held leases lost so far: a bundle prepared across a loss is not sent. */
  let leaseLosses = 0;
  let lease: IndexerLease | undefined;
  /** Bundles while this process holds the lease; a lost lease stops bundling at once (another process may take over). */
  async function follow() {
    while (!closed) {
      const current = acquireIndexerLease({ url: deps.databaseUrl, registry: deps.registry }, name, logger, 'bundler');
      lease = current;
      const held = await Promise.race([current.acquired.then(() => true), current.ended.then(() => false)]);
      if (held && !closed) await startActive();
      await current.ended;
      if (held) leaseLosses++;
      active = false;
      clearInterval(timer);
      if (!closed) await new Promise((resolve) => setTimeout(resolve, leaseRetryMs));
    }
  }
  async function startActive() {
    active = true;
    await resumeSubmitted().catch((error: unknown) =>
      logger.warn({ err: error }, 'could not check bundles sent before the restart'),
    );
    if (!active || closed) return;
    timer = setInterval(run, pollMs);
    for (const executor of executors)
      await watchBalance(executor).catch((error: unknown) => logger.warn({ err: error }, 'executor balance unknown'));
    run();
  }
  const following = follow();

  return {
    poke() {
      setTimeout(run, gatherMs);
    },
    setMode(next) {
      mode = next;
    },
    async bundleNow() {
      await idle();
      const before = lastBundle;
      running = true;
      try {
        await resumeSubmitted();
        const rows = await loadBatch();
        if (rows.length > 0) {
          const executor = executors[0]!;
          executor.busy = true;
          const release = claim(rows);
          try {
            await bundleWith(executor, rows);
          } finally {
            release();
            executor.busy = false;
          }
        }
      } finally {
        running = false;
      }
      return lastBundle === before ? undefined : lastBundle;
    },
    get active() {
      return active && !closed;
    },
    bundleAlone: (ops, admit) =>
      bundleAlone({
        ops,
        admit,
        claim,
        load: (hashes) => db.selectFrom('user_operations').selectAll().where('hash', 'in', hashes).execute(),
        executors,
        bundleWith,
        isClosed: () => closed || !active,
        inFlight: (change) => {
          bundlesInFlight += change;
        },
      }),
    async close() {
      closed = true;
      clearInterval(timer);
      await idle();
      await lease?.release();
      await following;
    },
  };
}

/** Each sender's lowest-nonce op on each nonce key, in the order the rows come. */
function nextOfEachSender(rows: readonly UserOperationRow[]): UserOperationRow[] {
  return [...runsBySenderKey(rows).values()].map((run) => run[0]!);
}

/**
 * The ops of a bundle: for each sender and nonce key, its lowest pending nonce and the consecutive
 * ones after it (each was validated in the state the earlier ones leave), a run kept together in
 * nonce order, up to its first op that `eligible` refuses; runs in the order their first op came.
 */
function queuedRunsInNonceOrder(
  rows: readonly UserOperationRow[],
  eligible: (row: UserOperationRow) => boolean = () => true,
): UserOperationRow[] {
  return [...runsBySenderKey(rows).values()].flatMap((run) => {
    if (!eligible(run[0]!)) return [];
    const consecutive = [run[0]!];
    for (const row of run.slice(1)) {
      if (BigInt(row.nonce) !== BigInt(consecutive[consecutive.length - 1]!.nonce) + 1n || !eligible(row)) break;
      consecutive.push(row);
    }
    return consecutive;
  });
}

/** Rows by sender and nonce key, each group in nonce order; groups in the order their first row comes. */
function runsBySenderKey(rows: readonly UserOperationRow[]): Map<string, UserOperationRow[]> {
  const groups = new Map<string, UserOperationRow[]>();
  for (const row of rows) {
    const key = `${row.sender.toLowerCase()}|${BigInt(row.nonce) >> 64n}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  for (const group of groups.values()) group.sort((a, b) => (BigInt(a.nonce) < BigInt(b.nonce) ? -1 : 1));
  return groups;
}

function groupByTx(rows: UserOperationRow[]): Map<string, UserOperationRow[]> {
  const groups = new Map<string, UserOperationRow[]>();
  for (const row of rows) {
    if (!row.tx_hash) continue;
    groups.set(row.tx_hash, [...(groups.get(row.tx_hash) ?? []), row]);
  }
  return groups;
}

const hex = (value: bigint | number) => `0x${value.toString(16)}`;

/** JSON with bigints as 0x quantities (viem's receipts and logs carry bigints). */
export function toJsonSafe<T>(value: T): unknown {
  return JSON.parse(JSON.stringify(value, (_key, inner) => (typeof inner === 'bigint' ? hex(inner) : inner)));
}
