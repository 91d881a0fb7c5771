import type { Hex, StateOverride } from 'viem';
import { networkKey } from '../../chains/network-key.ts';
import type { Network } from '../../chains/registry.ts';
import { blockGasLimitError, recentBlockGasLimit } from '../block-gas-limit.ts';
import type { BundlerContext } from '../bundler-context.ts';
import { checkAuthorization, userOperationHashOnChain } from '../eip7702-chain.ts';
import { type EntryPoint, parseUserOperationCall, readOnChainNonce } from '../entry-points.ts';
import { includedOnChainError, knownOpError } from '../known-ops.ts';
import { admitToMempool } from '../mempool-admission.ts';
import { mempoolConflictError } from '../mempool-conflict-error.ts';
import { checkMempoolLimits, readStandings, senderLimitError, senderLimitOf } from '../mempool-limits.ts';
import { checkNonce, type NonceCheck } from '../nonce-check.ts';
import { maxCostOf } from '../op-max-cost.ts';
import { replacedOp } from '../op-replacement.ts';
import { startValidation, type ValidationTarget, validationVerdict } from '../op-validation.ts';
import { pendingDepositError, readPendingDeposit } from '../paymaster-deposit-check.ts';
import { l1PreVerificationGas, opGasPrice } from '../pre-verification-gas.ts';
import { earlierOpsOf, queuedStateOverride } from '../queued-state.ts';
import { alreadyKnown, BundlerRpcError, invalidParams } from '../rpc-errors.ts';
import { SendAgain } from '../send-again.ts';
import { sendFloorError } from '../send-floors.ts';
import { type QueuedOp, readQueuedOfSender } from '../sender-queue.ts';
import { turnKeyOf } from '../sender-turns.ts';
import { settledOf } from '../settled.ts';
import { type AnyUserOperation, entitiesOf, toRpcUserOperation } from '../user-operation.ts';

/** How long an op of an undeployed sender without a factory waits for its deploying op to arrive (ops sent at once). */
const deployingOpGraceMs = 500;

/**
 * eth_sendUserOperation. A send takes its turn among the sends of its sender's nonce key under way
 * here (lower nonces first), and is checked again from the start once when what it was queued behind
 * changed (a missing lower nonce arrived, or the earlier ops landed).
 */
export async function sendUserOperation(ctx: BundlerContext, network: Network, params: unknown[]): Promise<Hex> {
  const { entryPoint, op } = parseUserOperationCall(network, params);
  const turn = ctx.turns.enter(turnKeyOf(networkKey(network), entryPoint.address, op), op.nonce);
  try {
    // After a lower nonce's send, this op is most likely queued behind it.
    const likelyQueued = await turn.earlierDone();
    return await admitUserOperation(ctx, network, entryPoint, op, { again: false, likelyQueued });
  } catch (error) {
    if (!(error instanceof SendAgain)) throw error;
    return await admitUserOperation(ctx, network, entryPoint, op, { again: true, likelyQueued: true });
  } finally {
    turn.leave();
  }
}

/** Checks the op (nonce, replacement, mempool limits, validation, deposit, fee floors) and writes it to the mempool. */
async function admitUserOperation(
  ctx: BundlerContext,
  network: Network,
  entryPoint: EntryPoint,
  op: AnyUserOperation,
  retry: { again: boolean; likelyQueued: boolean },
): Promise<Hex> {
  const client = ctx.clientOf(network);
  const name = networkKey(network);
  if (op.maxPriorityFeePerGas > op.maxFeePerGas) throw invalidParams('maxPriorityFeePerGas is above maxFeePerGas');
  await checkAuthorization(client, op, network.config.chainId, { verifySigner: true });
  const entities = entitiesOf(op);
  const target: ValidationTarget = { network, entryPoint, op, entities, override: [] };
  // Validation starts at once, beside the reads, as if the op's nonce were the next on chain (it
  // almost always is); an op queued behind others of its sender is validated again below. One that
  // came right after a lower nonce's send is validated only once its place in the queue is known.
  const firstTry = retry.likelyQueued ? undefined : startValidation(ctx, target);
  const paymaster = entities.paymaster;
  const pendingDeposit = paymaster
    ? settledOf(readPendingDeposit(ctx.db, client, { network: name, entryPoint: entryPoint.address, paymaster }))
    : undefined;
  const standings = readStandings(ctx.reputation, name, entities, network.config.bundler.safeMode);
  // The next block's base fee, the sender's queued ops and whether this very op is known, asked
  // together; the first two before the op's hash is computed (half a millisecond of CPU), which the
  // third needs. The nonce on chain is read only when the sender has ops queued on this key, or when the
  // simulation refuses the nonce (AA25): otherwise the op's nonce must be the next on chain, which the
  // simulation itself checks.
  const baseFeeRead = ctx.recentBaseFee(client);
  const blockGasLimitRead = settledOf(recentBlockGasLimit(client));
  const queuedRead = readQueuedOfSender(ctx.db, name, entryPoint.address, op.sender);
  // Awaited below, unless the hash throws first.
  baseFeeRead.catch(() => undefined);
  queuedRead.catch(() => undefined);
  const hash = (
    await userOperationHashOnChain(client, op, entryPoint.version, entryPoint.address, network.config.chainId)
  ).toLowerCase();
  const [baseFee, queued, known] = await Promise.all([baseFeeRead, queuedRead, knownOpError(ctx.db, client, hash)]);
  if (known) throw known;
  // The op's L1 part (rollups) at its own price, read while the op is checked.
  const l1Part = settledOf(l1PartOf(ctx, network, entryPoint, op, baseFee));
  const key = op.nonce >> 64n;
  const readNonce = () => readOnChainNonce(client, entryPoint.address, op.sender, key);
  const nonceCheck: NonceCheck = {
    name,
    entryPoint: entryPoint.address,
    op,
    queuedNonces: new Set(queued.filter((row) => BigInt(row.nonce) >> 64n === key).map((row) => BigInt(row.nonce))),
    again: retry.again,
    // Another bundler may have included this very op.
    usedByItself: () => includedOnChainError(client, entryPoint, hash as Hex),
  };
  const onChain = nonceCheck.queuedNonces.size > 0 ? await readNonce() : undefined;
  if (onChain !== undefined) await checkNonce(ctx, nonceCheck, onChain);
  const replacing = replacedOp(op, hash, queued);
  const { safeMode } = network.config.bundler;
  const senderLimit = senderLimitOf(network.config.bundler);
  await checkMempoolLimits(ctx.db, {
    name,
    sender: op.sender,
    entities,
    standings,
    queued: queued.length,
    replacing: replacing !== undefined,
    senderLimit,
    safeMode,
  });

  // Validation by the EntryPoint's own simulation; an op queued behind others sees its nonce as theirs will leave it.
  const override = await queuedOverride(ctx, target, queued, onChain, retry);
  const validation =
    override.length === 0 ? (firstTry ?? startValidation(ctx, target)) : startValidation(ctx, { ...target, override });
  // A nonce the simulation refused, said as the nonce check says it when ops are queued. An account
  // not deployed (AA20, checked before the nonce) may be one whose deploying op, of a lower nonce, is
  // being sent here now: that send is waited on, and one that has not arrived yet only briefly (ops a
  // client sends at once can arrive out of order); an undeployed sender without a factory is otherwise
  // junk, refused within that as the reference bundlers refuse it. When the nonce is right, the chain moved under the simulation (the sender's earlier op landed
  // meanwhile): the op is checked again, once.
  const found = await validationVerdict(ctx, { ...target, override }, validation, async (reason) => {
    if (onChain === undefined) {
      try {
        await checkNonce(
          ctx,
          reason === 'AA20' ? { ...nonceCheck, gapGraceMs: deployingOpGraceMs } : nonceCheck,
          await readNonce(),
        );
      } catch (error) {
        // No deploying op came: the account is not deployed, which is what the sender must hear.
        if (reason === 'AA20' && !(error instanceof SendAgain)) return;
        throw error;
      }
    }
    if (!retry.again) throw new SendAgain();
  }).catch(async (error: unknown) => {
    // A deploying op sent again after another bundler included it finds its sender deployed: AA10.
    if (error instanceof BundlerRpcError && /^AA10/.test(String((error.data as { reason?: unknown } | undefined)?.reason)))
      throw (await includedOnChainError(client, entryPoint, hash as Hex).catch(() => undefined)) ?? error;
    throw error;
  });
  // An op validated alone already showed its paymaster can pay for it (no AA31): a failed read of the
  // deposit or the mempool does not refuse it.
  const depositState = pendingDeposit && (await pendingDeposit);
  if (depositState?.ok && paymaster) {
    const short = pendingDepositError(depositState.value, {
      cost: maxCostOf(op, entryPoint.version),
      paymaster,
      replacing: replacing?.hash,
    });
    if (short) throw short;
  }
  // The floors are said only once the op validates: a failed simulation is the real problem.
  const l1Settled = await l1Part;
  if (!l1Settled.ok) throw l1Settled.error;
  const floorError = sendFloorError(op, entryPoint.version, {
    baseFee,
    l1PreVerificationGas: l1Settled.value,
    minTip: network.config.minPriorityFeeWei,
  });
  if (floorError) throw floorError;
  const blockGasLimit = await blockGasLimitRead;
  const tooMuchGas = blockGasLimit.ok ? blockGasLimitError(op, entryPoint.version, blockGasLimit.value) : undefined;
  if (tooMuchGas) throw tooMuchGas;
  await enterMempool(ctx, {
    name,
    entryPoint,
    op,
    entities,
    hash,
    replacing: replacing?.hash,
    senderLimit: senderLimitOf(network.config.bundler, found.senderStaked),
    senderStaked: found.senderStaked === true,
    safeMode,
    storageOwners: found.storageOwners,
    codeHashes: found.codeHashes,
  });
  ctx.queued(name);
  return hash as Hex;
}

/** The L1 part of the op's preVerificationGas at the price the EntryPoint will charge it (0 off rollups). */
async function l1PartOf(
  ctx: BundlerContext,
  network: Network,
  entryPoint: EntryPoint,
  op: AnyUserOperation,
  baseFee: bigint | null,
): Promise<bigint> {
  const oracle = ctx.l1FeeOf(network);
  if (!oracle.charged) return 0n;
  const price = opGasPrice(op, baseFee ?? 0n);
  const priced = { op, version: entryPoint.version, entryPoint: entryPoint.address, chainId: network.config.chainId };
  // An op that pays nothing per gas cannot pay an L1 fee: 1 wei makes its need plain in the refusal.
  return l1PreVerificationGas(oracle, priced, price > 0n ? price : 1n);
}

/**
 * The state an op queued behind its sender's earlier ops is validated in (the state they leave);
 * none for the next nonce on chain. When the earlier ops no longer run as they did (one landed, or
 * was dropped), everything is read again once.
 */
async function queuedOverride(
  ctx: BundlerContext,
  target: ValidationTarget,
  queued: readonly QueuedOp[],
  onChain: bigint | undefined,
  retry: { again: boolean },
): Promise<StateOverride> {
  const { entryPoint, op } = target;
  if (onChain === undefined || op.nonce <= onChain) return [];
  const override = await queuedStateOverride({
    client: ctx.clientOf(target.network),
    version: entryPoint.version,
    entryPoint: entryPoint.address,
    op,
    earlier: earlierOpsOf(queued, entryPoint.version, onChain, op.nonce),
  });
  if (override !== 'stale') return override;
  if (retry.again) throw invalidParams("the sender's earlier queued operations no longer run at the head; send this one again");
  throw new SendAgain();
}

/**
 * Writes the op to the mempool, refused when its entities are another pending op's sender or its
 * sender another's entity (STO-040), when its sender's ops sent meanwhile reached the limit, or when
 * it is there already. The contracts whose storage it touched go with it: a bundle does not carry it
 * beside an op whose sender is one of them (STO-041, as the reference bundler applies it).
 */
async function enterMempool(
  ctx: BundlerContext,
  admitted: {
    name: string;
    entryPoint: EntryPoint;
    op: AnyUserOperation;
    entities: { factory: string | null; paymaster: string | null };
    hash: string;
    replacing: string | undefined;
    senderLimit: number;
    /** A staked sender is an entity with a reputation of its own (ERC-7562): the op counts as seen for it too. */
    senderStaked: boolean;
    safeMode: boolean;
    /** Contracts whose storage the validation touched (STO-041); undefined when it was not traced. */
    storageOwners: readonly string[] | undefined;
    codeHashes: Record<string, string> | undefined;
  },
): Promise<void> {
  const { op, entities, storageOwners } = admitted;
  const row = {
    hash: admitted.hash,
    network: admitted.name,
    entry_point: admitted.entryPoint.address,
    entry_point_version: admitted.entryPoint.version,
    sender: op.sender,
    nonce: op.nonce.toString(),
    factory: entities.factory,
    paymaster: entities.paymaster,
    op: toRpcUserOperation(op),
    max_fee_per_gas: op.maxFeePerGas.toString(),
    max_priority_fee_per_gas: op.maxPriorityFeePerGas.toString(),
    status: 'pending' as const,
    code_hashes: admitted.codeHashes ?? null,
    storage_owners: storageOwners ?? null,
  };
  const ours = [entities.factory, entities.paymaster].filter((address): address is string => address !== null);
  const refusal = await admitToMempool(ctx.db, {
    row,
    conflictsWith: storageOwners === undefined ? undefined : ours,
    seenEntities: admitted.senderStaked ? [...ours, op.sender.toLowerCase()] : ours,
    replacing: admitted.replacing,
    senderLimit: admitted.senderLimit,
  });
  if (refusal?.kind === 'conflict') throw mempoolConflictError(refusal.conflict, op.sender, entities);
  if (refusal?.kind === 'sender-limit')
    throw senderLimitError(op.sender, refusal.pending, admitted.senderLimit, admitted.safeMode);
  if (refusal?.kind === 'already-known') throw alreadyKnown(admitted.hash);
  if (refusal?.kind === 'nonce-taken')
    throw invalidParams(
      `replacement underpriced: another operation of the sender ${op.sender} with nonce ${op.nonce} entered the mempool while this one was validated; to replace it, send this one again with maxFeePerGas and maxPriorityFeePerGas at least 10% higher`,
      'nonce',
    );
}
