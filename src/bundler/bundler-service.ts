import type { Kysely } from 'kysely';
import { type Address, getAddress, type Hex, isAddress, isHex, parseEventLogs, type StateOverride, toHex } from 'viem';
import { publicClientsByNetwork } from '../chains/public-client.ts';
import type { Network } from '../chains/registry.ts';
import type { UserOperationRow } from '../db/tables/bundler.ts';
import type { Tables } from '../db/tables.ts';
import { entryPointV06Abi, entryPointV07Abi } from '../erc4337/contracts/abis.ts';
import { type BundleLoop, toJsonSafe } from './bundle-loop.ts';
import type { CodeHashes } from './code-hashes.ts';
import { delegationOverride } from './eip7702-authorization.ts';
import { checkAuthorization } from './eip7702-chain.ts';
import { checkCallSucceeds, estimateUserOperationGas } from './gas-estimation.ts';
import { quoteUserOperationGasPrice } from './gas-price-quote.ts';
import { admitToMempool } from './mempool-admission.ts';
import { mempoolConflictError } from './mempool-conflict-error.ts';
import { outcomeError } from './outcome-errors.ts';
import { maxCostOf, pendingDepositError, readPendingDeposit } from './paymaster-deposit-check.ts';
import { earlierOpsOf, queuedStateOverride } from './queued-state.ts';
import { createRecentBaseFee } from './recent-base-fee.ts';
import { reputationParams } from './reputation.ts';
import { createReputationStore } from './reputation-store.ts';
import { alreadyKnown, BundlerRpcError, bundlerErrorCodes, invalidNonce, invalidParams } from './rpc-errors.ts';
import { sendFloorError } from './send-floors.ts';
import { createSendNow } from './send-now.ts';
import { earlierAllKnown, estimationState } from './sender-queue.ts';
import { createSenderTurns } from './sender-turns.ts';
import { type StakeInfo, simulateValidation, simulationOutcomeOfFrame } from './simulation.ts';
import { mergeStateOverrides, rpcStateOverride } from './state-override.ts';
import {
  type AnyUserOperation,
  deploysSender,
  type EntryPointVersion,
  entitiesOf,
  estimationDefaults,
  parseUserOperation,
  toRpcUserOperation,
  userOperationHash,
} from './user-operation.ts';
import { userOperationReceipt } from './user-operation-receipt.ts';
import type { RuleEntities } from './validation-rule-types.ts';
import { checkValidationRules, traceValidation } from './validation-rules.ts';

const hex = (value: bigint | number) => toHex(value);
/** A replacement must raise both fees by at least this (ERC-7562: 10%). */
const replacementBumpPercent = 110n;
/**
 * How long a send whose nonce leaves a gap waits for the missing lower nonces to arrive. A client
 * sending several at once may send the first last (viem looks up the account's deployment for it
 * only): 2.4 s late was seen with 200 ops sent at once on the test machine.
 */
const gapGraceMs = 5_000;

/** Thrown inside a send to check it again from the start (what it is queued behind changed). */
class SendAgain extends Error {}

const turnKeyOf = (network: string, entryPoint: Address, op: AnyUserOperation) =>
  `${network}|${entryPoint}|${op.sender.toLowerCase()}|${op.nonce >> 64n}`;

export interface BundlerDeps {
  db: Kysely<Tables>;
  /** The bundle loop of a network in this process (the debug methods drive it). */
  loopOf: (network: string) => BundleLoop | undefined;
  /** An op was queued on this network: bundle soon. */
  queued: (network: string) => void;
}

export function entryPointsOf(network: Network): { version: EntryPointVersion; address: Address }[] {
  return [
    { version: '0.7', address: getAddress(network.config.erc4337.entryPointV07) },
    { version: '0.6', address: getAddress(network.config.erc4337.entryPointV06) },
  ];
}

function resolveEntryPoint(network: Network, input: unknown): { version: EntryPointVersion; address: Address } {
  if (typeof input !== 'string' || !isAddress(input, { strict: false }))
    throw invalidParams('the second parameter must be the EntryPoint address');
  const found = entryPointsOf(network).find((entry) => entry.address.toLowerCase() === input.toLowerCase());
  if (!found) {
    throw invalidParams(
      `EntryPoint ${input} is not supported here; supported: ${entryPointsOf(network)
        .map((entry) => entry.address)
        .join(', ')}`,
    );
  }
  return found;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };
const settle = <T>(promise: Promise<T>): Promise<Settled<T>> =>
  promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

export function createBundlerService(deps: BundlerDeps) {
  const { db } = deps;
  const reputation = createReputationStore(db);
  const clientOf = publicClientsByNetwork();
  const recentBaseFee = createRecentBaseFee();
  /** Networks whose upstream has no debug_traceCall: the ERC-7562 rules cannot be checked there. */
  const untraceable = new Set<Network>();
  const networkName = (network: Network) => `${network.config.chain}/${network.config.network}`;
  const turns = createSenderTurns();

  async function findOp(hash: unknown): Promise<UserOperationRow | undefined> {
    if (typeof hash !== 'string' || !isHex(hash) || hash.length !== 66)
      throw invalidParams('the parameter must be a UserOperation hash (0x and 64 hex digits)');
    return db.selectFrom('user_operations').selectAll().where('hash', '=', hash.toLowerCase()).executeTakeFirst();
  }

  /**
   * The op's validation, started together: the EntryPoint's simulation, the ERC-7562 rules (their
   * traces run beside the simulation, whose stakes they then use) and the execution check. Each
   * result is settled, so that one not awaited (an op found to be queued) rejects nobody.
   */
  function validate(
    network: Network,
    entryPoint: { version: EntryPointVersion; address: Address },
    op: AnyUserOperation,
    entities: { factory: string | null; paymaster: string | null },
    override: StateOverride,
  ) {
    return {
      ...simulateAndCheckRules(network, entryPoint, op, entities, override, 'latest'),
      execution: settle(checkCallSucceeds(clientOf(network), entryPoint.address, op, deploysSender(op), override)),
    };
  }

  /** The simulation and the ERC-7562 rules, their traces run at `block` ('latest', or one block for a re-check). */
  function simulateAndCheckRules(
    network: Network,
    entryPoint: { version: EntryPointVersion; address: Address },
    op: AnyUserOperation,
    entities: { factory: string | null; paymaster: string | null },
    override: StateOverride,
    block: Hex | 'latest',
  ) {
    const client = clientOf(network);
    const traces =
      network.config.bundler.safeMode && !untraceable.has(network)
        ? traceValidation(
            (call, options) => client.request({ method: 'debug_traceCall' as never, params: [call, block, options] as never }),
            entryPoint.version,
            entryPoint.address,
            op,
            rpcStateOverride(mergeStateOverrides(override, delegationOverride(op))),
          )
        : undefined;
    const simulateByCall = () => simulateValidation(client, entryPoint.version, entryPoint.address, op, override);
    // The call tree's top frame is the simulation's own answer: the call runs once, not twice.
    const simulation = traces
      ? traces.tree.then(
          (frame) => simulationOutcomeOfFrame(client, entryPoint.version, entryPoint.address, op, frame),
          simulateByCall,
        )
      : simulateByCall();
    const isStaked = (info: StakeInfo) =>
      info.stake >= network.config.bundler.minStakeWei && info.unstakeDelaySec >= BigInt(network.config.bundler.minUnstakeDelayS);
    const rules: Promise<{ storageOwners: string[]; codeHashes: CodeHashes } | 'untraceable' | 'skipped'> = traces
      ? checkValidationRules(
          traces,
          simulation.then(
            (outcome): RuleEntities => ({
              entryPoint: entryPoint.address,
              sender: op.sender,
              factory: entities.factory ?? undefined,
              paymaster: entities.paymaster ?? undefined,
              deploying: deploysSender(op),
              staked: {
                sender: isStaked(outcome.stakes.sender),
                factory: isStaked(outcome.stakes.factory),
                paymaster: isStaked(outcome.stakes.paymaster),
              },
            }),
          ),
        )
      : Promise.resolve('skipped' as const);
    return { simulation: settle(simulation), rules: settle(rules) };
  }

  /**
   * A send takes its turn among the sends of its sender's nonce key under way here (lower nonces
   * first), and is checked again from the start once when what it was queued behind changed (a
   * missing lower nonce arrived, or the earlier ops landed).
   */
  async function sendUserOperation(network: Network, params: unknown[]): Promise<Hex> {
    const entryPoint = resolveEntryPoint(network, params[1]);
    const op = parseUserOperation(entryPoint.version, params[0]);
    const turn = turns.enter(turnKeyOf(networkName(network), entryPoint.address, op), op.nonce);
    try {
      // After a lower nonce's send, this op is most likely queued behind it.
      const likelyQueued = await turn.earlierDone();
      return await admitUserOperation(network, entryPoint, op, { again: false, likelyQueued });
    } catch (error) {
      if (!(error instanceof SendAgain)) throw error;
      return await admitUserOperation(network, entryPoint, op, { again: true, likelyQueued: true });
    } finally {
      turn.leave();
    }
  }

  async function admitUserOperation(
    network: Network,
    entryPoint: { version: EntryPointVersion; address: Address },
    op: AnyUserOperation,
    retry: { again: boolean; likelyQueued: boolean },
  ): Promise<Hex> {
    const client = clientOf(network);
    const name = networkName(network);
    if (op.maxPriorityFeePerGas > op.maxFeePerGas) throw invalidParams('maxPriorityFeePerGas is above maxFeePerGas');
    await checkAuthorization(client, op, network.config.chainId, { verifySigner: true });
    const key = op.nonce >> 64n;
    const entities = entitiesOf(op);
    // Validation starts at once, beside the reads, as if the op's nonce were the next on chain (it
    // almost always is); an op queued behind others of its sender is validated again below. One that
    // came right after a lower nonce's send is validated only once its place in the queue is known.
    const firstTry = retry.likelyQueued ? undefined : validate(network, entryPoint, op, entities, []);
    const paymaster = entities.paymaster;
    const pendingDeposit = paymaster
      ? settle(readPendingDeposit(db, client, { network: name, entryPoint: entryPoint.address, paymaster }))
      : undefined;
    // Reputation (ERC-7562) throttles and bans only in safe mode: without it no entity is refused for it.
    const standings = new Map(
      [entities.factory, entities.paymaster]
        .filter((address): address is string => address !== null && network.config.bundler.safeMode)
        .map((address) => {
          const standing = reputation.get(name, address);
          standing.catch(() => undefined); // awaited below, unless the op is refused first
          return [address, standing] as const;
        }),
    );
    // The next block's base fee and the sender's queued ops, asked together. The nonce on chain is read only
    // when the sender has ops queued on this key, or when the simulation refuses the nonce (AA25):
    // otherwise the op's nonce must be the next on chain, which the simulation itself checks.
    const [baseFee, queued] = await Promise.all([
      recentBaseFee(client),
      db
        .selectFrom('user_operations')
        .select(['hash', 'nonce', 'max_fee_per_gas', 'max_priority_fee_per_gas', 'status', 'op'])
        .where('network', '=', name)
        .where('entry_point', '=', entryPoint.address)
        .where('sender', '=', op.sender)
        .where('status', 'in', ['pending', 'submitted'])
        .execute(),
    ]);
    // The floors are said only once the op validates: a failed simulation is the real problem.
    const floorError = sendFloorError(op, entryPoint.version, baseFee);

    const readNonce = () =>
      client.readContract({
        address: entryPoint.address,
        abi: entryPointV06Abi,
        functionName: 'getNonce',
        args: [op.sender, key],
      });
    const queuedNonces = new Set(queued.filter((row) => BigInt(row.nonce) >> 64n === key).map((row) => BigInt(row.nonce)));
    const onChain = queuedNonces.size > 0 ? await readNonce() : undefined;
    /**
     * Nonces: the next one for its key on chain, or the next after this sender's queued ops. A gap
     * is waited on a little (its lower nonce may be on its way, sent at the same time), once.
     */
    const checkNonce = async (onChain: bigint) => {
      if (op.nonce < onChain) throw invalidNonce(`nonce too low: ${op.nonce} is used; the next for this key is ${onChain}`);
      let next = onChain;
      while (queuedNonces.has(next)) next++;
      if (queuedNonces.has(op.nonce) || op.nonce <= next) return;
      const turnKey = turnKeyOf(name, entryPoint.address, op);
      if (
        !retry.again &&
        (await turns.waitForGap(turnKey, op.nonce, () => earlierAllKnown(db, name, entryPoint.address, op, onChain), gapGraceMs))
      )
        throw new SendAgain();
      throw invalidNonce(
        `nonce too high: ${op.nonce}; the next for this key is ${next} (on chain ${onChain}, ${next - onChain} queued)`,
      );
    };
    if (onChain !== undefined) await checkNonce(onChain);
    const hash = userOperationHash(op, entryPoint.version, entryPoint.address, network.config.chainId).toLowerCase();
    const replacing = queued.find((row) => BigInt(row.nonce) === op.nonce);
    if (replacing?.hash === hash) throw alreadyKnown(hash);
    if (replacing) {
      if (replacing.status === 'submitted')
        throw invalidParams('an operation with this nonce is already in a bundle on its way: it cannot be replaced now');
      const feeOk = op.maxFeePerGas * 100n >= BigInt(replacing.max_fee_per_gas) * replacementBumpPercent;
      const tipOk = op.maxPriorityFeePerGas * 100n >= BigInt(replacing.max_priority_fee_per_gas) * replacementBumpPercent;
      if (!feeOk || !tipOk)
        throw invalidParams(
          'replacement underpriced: raise maxFeePerGas and maxPriorityFeePerGas by at least 10% over the queued operation',
        );
    }

    // ERC-7562 mempool limits: an unstaked sender holds a few pending ops at most; a throttled factory
    // or paymaster a few, a banned one none.
    if (!replacing && queued.length >= reputationParams.sameSenderMempoolCount) {
      throw new BundlerRpcError(
        bundlerErrorCodes.throttled,
        `the sender already has ${queued.length} operations pending; wait for one to land (ERC-7562 allows ${reputationParams.sameSenderMempoolCount})`,
      );
    }
    for (const [role, address] of Object.entries(entities) as [string, string | null][]) {
      const standingOf = address === null ? undefined : standings.get(address);
      if (address === null || standingOf === undefined) continue;
      const standing = await standingOf;
      if (standing.status === 'banned') {
        throw new BundlerRpcError(
          bundlerErrorCodes.throttled,
          `the ${role} ${address} is banned (ERC-7562 reputation: seen in ${standing.opsSeen} operations, ${standing.opsIncluded} included)`,
        );
      }
      if (standing.status === 'throttled') {
        const pendingWith = await db
          .selectFrom('user_operations')
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('network', '=', name)
          .where('status', '=', 'pending')
          .where(role === 'factory' ? 'factory' : 'paymaster', '=', address)
          .executeTakeFirstOrThrow();
        if (Number(pendingWith.n) >= reputationParams.throttledEntityMempoolCount) {
          throw new BundlerRpcError(
            bundlerErrorCodes.throttled,
            `the ${role} ${address} is throttled (ERC-7562 reputation) and already has ${pendingWith.n} operations pending`,
          );
        }
      }
    }

    // Validation by the EntryPoint's own simulation; an op queued behind others sees its nonce as theirs will leave it.
    const override =
      onChain !== undefined && op.nonce > onChain
        ? await queuedStateOverride({
            client,
            version: entryPoint.version,
            entryPoint: entryPoint.address,
            op,
            earlier: earlierOpsOf(queued, entryPoint.version, onChain, op.nonce),
          })
        : [];
    // The earlier ops no longer run as they did (one landed, or was dropped): everything is read again.
    if (override === 'stale') {
      if (retry.again)
        throw invalidParams("the sender's earlier queued operations no longer run at the head; send this one again");
      throw new SendAgain();
    }
    const validation =
      override.length === 0
        ? (firstTry ?? validate(network, entryPoint, op, entities, []))
        : validate(network, entryPoint, op, entities, override);
    const simulated = await validation.simulation;
    try {
      if (!simulated.ok) throw simulated.error;
      const refused = outcomeError(simulated.value, Math.floor(Date.now() / 1000));
      if (refused) throw refused;
    } catch (error) {
      // A nonce the simulation refused, said as the nonce check says it when ops are queued. An
      // account not deployed (AA20, checked before the nonce) may be one whose deploying op, of a
      // lower nonce, is on its way: the nonce tells. When the nonce is right, the chain moved under
      // the simulation (the sender's earlier op landed meanwhile): the op is checked again, once.
      const reason =
        error instanceof BundlerRpcError ? String((error.data as { reason?: unknown } | undefined)?.reason ?? '') : '';
      if (/^AA25/.test(reason) || (/^AA20/.test(reason) && !deploysSender(op))) {
        if (onChain === undefined) await checkNonce(await readNonce());
        if (!retry.again) throw new SendAgain();
      }
      throw error;
    }
    let codeHashes: CodeHashes | undefined;
    /** Contracts whose storage the validation touched (STO-041); undefined when it was not traced. */
    let storageOwners: readonly string[] | undefined;
    // A broken rule is reported before a failing call.
    let ruled = await validation.rules;
    if (!ruled.ok && ruled.error instanceof BundlerRpcError && ruled.error.code === bundlerErrorCodes.bannedOpcode) {
      // The traces ran side by side at 'latest': a block mined between them shows each a different
      // chain (an account deployed in one, not in the other). A broken rule is confirmed at one block.
      const pinned = simulateAndCheckRules(
        network,
        entryPoint,
        op,
        entities,
        override,
        toHex(await client.getBlockNumber({ cacheTime: 0 })),
      );
      const again = await pinned.simulation;
      if (!again.ok) throw again.error;
      ruled = await pinned.rules;
    }
    if (!ruled.ok) throw ruled.error;
    if (ruled.value === 'untraceable') untraceable.add(network);
    else if (ruled.value !== 'skipped') {
      storageOwners = ruled.value.storageOwners;
      codeHashes = ruled.value.codeHashes;
    }
    const executed = await validation.execution;
    if (!executed.ok) throw executed.error;
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
    if (floorError) throw floorError;

    const row = {
      hash,
      network: name,
      entry_point: entryPoint.address,
      entry_point_version: entryPoint.version,
      sender: op.sender,
      nonce: op.nonce.toString(),
      factory: entities.factory,
      paymaster: entities.paymaster,
      op: toRpcUserOperation(op),
      max_fee_per_gas: op.maxFeePerGas.toString(),
      max_priority_fee_per_gas: op.maxPriorityFeePerGas.toString(),
      status: 'pending' as const,
      code_hashes: codeHashes ?? null,
    };
    const ours = [entities.factory, entities.paymaster].filter((address): address is string => address !== null);
    const conflict = await admitToMempool(db, {
      row,
      conflictsWith: storageOwners === undefined ? undefined : [...new Set([...ours, ...storageOwners])],
      seenEntities: ours,
      replacing: replacing?.hash,
    });
    if (conflict) throw mempoolConflictError(conflict, op.sender, entities);
    deps.queued(name);
    return hash as Hex;
  }

  /** ERC-7769's debug_bundler_* methods: only on networks with dev_methods (devnets). */
  async function debugMethod(network: Network, method: string, params: unknown[]): Promise<unknown> {
    if (!network.config.devMethods)
      throw new BundlerRpcError(bundlerErrorCodes.methodNotFound, `${method} is a devnet method (dev_methods: true)`);
    const name = networkName(network);
    const loop = deps.loopOf(name);
    switch (method) {
      case 'debug_bundler_clearState':
        await db.deleteFrom('user_operations').where('network', '=', name).where('status', '=', 'pending').execute();
        await reputation.clear(name);
        return 'ok';
      case 'debug_bundler_dumpReputation':
        resolveEntryPoint(network, params[0]);
        return (await reputation.list(name)).map((entry) => ({
          address: entry.address,
          opsSeen: hex(entry.opsSeen),
          opsIncluded: hex(entry.opsIncluded),
          // What is enforced: without safe mode, nobody is throttled or banned.
          status: network.config.bundler.safeMode ? entry.status : 'ok',
        }));
      case 'debug_bundler_setReputation': {
        resolveEntryPoint(network, params[1]);
        if (!Array.isArray(params[0])) throw invalidParams('the first parameter is a list of {address, opsSeen, opsIncluded}');
        const entries = (params[0] as { address?: unknown; opsSeen?: unknown; opsIncluded?: unknown }[]).map((entry, index) => {
          if (typeof entry?.address !== 'string' || !isAddress(entry.address, { strict: false }))
            throw invalidParams(`entry ${index}: address must be a 0x address`);
          const count = (value: unknown, field: string) => {
            const parsed =
              typeof value === 'number'
                ? value
                : typeof value === 'string' && /^0x[0-9a-fA-F]+$|^\d+$/.test(value)
                  ? Number(value)
                  : Number.NaN;
            if (!Number.isSafeInteger(parsed) || parsed < 0)
              throw invalidParams(`entry ${index}: ${field} must be a non-negative integer (or 0x quantity)`);
            return parsed;
          };
          return {
            address: entry.address,
            opsSeen: count(entry.opsSeen, 'opsSeen'),
            opsIncluded: count(entry.opsIncluded, 'opsIncluded'),
          };
        });
        await reputation.set(name, entries);
        return 'ok';
      }
      case 'debug_bundler_dumpMempool': {
        const entryPoint = resolveEntryPoint(network, params[0]);
        const rows = await db
          .selectFrom('user_operations')
          .select('op')
          .where('network', '=', name)
          .where('entry_point', '=', entryPoint.address)
          .where('status', '=', 'pending')
          .orderBy('created_at')
          .execute();
        return rows.map((row) => row.op);
      }
      case 'debug_bundler_sendBundleNow':
        if (!loop) throw new BundlerRpcError(bundlerErrorCodes.internal, 'this process does not run the bundler role');
        return (await loop.bundleNow()) ?? 'ok';
      case 'debug_bundler_setBundlingMode': {
        if (params[0] !== 'auto' && params[0] !== 'manual') throw invalidParams('the mode is "auto" or "manual"');
        if (!loop) throw new BundlerRpcError(bundlerErrorCodes.internal, 'this process does not run the bundler role');
        loop.setMode(params[0]);
        return 'ok';
      }
      default:
        throw new BundlerRpcError(bundlerErrorCodes.methodNotFound, `the bundler has no method '${method}'`);
    }
  }

  async function receiptOf(network: Network, hash: unknown) {
    const row = await findOp(hash);
    if (row?.status === 'included' && row.receipt) return row.receipt;
    // A dropped op may still have landed through another bundler: its event on chain says so.
    if (row && row.status !== 'failed') return null;
    return receiptFromChain(network, (hash as string).toLowerCase() as Hex);
  }

  /**
   * An op this bundler never saw (another bundler's): its UserOperationEvent in the last 10,000
   * blocks of either EntryPoint, and the receipt built from its bundle's transaction.
   */
  async function receiptFromChain(network: Network, hash: Hex) {
    const client = clientOf(network);
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const fromBlock = head > 9_999n ? head - 9_999n : 0n;
    for (const entryPoint of entryPointsOf(network)) {
      const abi = entryPoint.version === '0.7' ? entryPointV07Abi : entryPointV06Abi;
      const logs = await client.getContractEvents({
        address: entryPoint.address,
        abi,
        eventName: 'UserOperationEvent',
        args: { userOpHash: hash },
        fromBlock,
        toBlock: head,
      });
      const found = logs[0];
      if (!found) continue;
      const receipt = await client.getTransactionReceipt({ hash: found.transactionHash });
      const events = parseEventLogs({ abi, logs: receipt.logs });
      const event = events.find(
        (entry) => entry.eventName === 'UserOperationEvent' && entry.args.userOpHash.toLowerCase() === hash,
      );
      if (event?.eventName !== 'UserOperationEvent') continue;
      const revert = events.find(
        (entry) => entry.eventName === 'UserOperationRevertReason' && entry.args.userOpHash.toLowerCase() === hash,
      );
      return toJsonSafe(
        userOperationReceipt(
          { hash },
          entryPoint.address,
          receipt,
          event.args,
          revert?.eventName === 'UserOperationRevertReason' ? revert.args.revertReason : undefined,
        ),
      );
    }
    return null;
  }

  const sendNow = createSendNow({
    db,
    loopOf: deps.loopOf,
    identify(network, params) {
      const entryPoint = resolveEntryPoint(network, params[1]);
      const op = parseUserOperation(entryPoint.version, params[0]);
      const hash = userOperationHash(op, entryPoint.version, entryPoint.address, network.config.chainId);
      return { hash: hash.toLowerCase(), sender: op.sender, nonce: op.nonce };
    },
    send: sendUserOperation,
    receipt: receiptOf,
  });

  return {
    async call(network: Network, method: string, params: unknown[]): Promise<unknown> {
      switch (method) {
        case 'eth_chainId':
          return hex(network.config.chainId);
        case 'eth_supportedEntryPoints':
          return entryPointsOf(network).map((entry) => entry.address);
        case 'eth_estimateUserOperationGas': {
          const entryPoint = resolveEntryPoint(network, params[1]);
          const op = parseUserOperation(entryPoint.version, params[0], { ...estimationDefaults, signature: '0x' });
          // Clients estimate with a stub signature on the authorization too: its signer is checked on send.
          await checkAuthorization(clientOf(network), op, network.config.chainId, { verifySigner: false });
          // A client may estimate N+1 as soon as it has sent N: N's send is let finish first.
          await turns.lowerDone(turnKeyOf(networkName(network), entryPoint.address, op), op.nonce);
          const estimate = await estimateUserOperationGas(
            clientOf(network),
            entryPoint.version,
            entryPoint.address,
            op,
            await estimationState(db, clientOf(network), networkName(network), entryPoint, op),
          );
          return Object.fromEntries(Object.entries(estimate).map(([name, value]) => [name, hex(value as bigint)]));
        }
        case 'eth_sendUserOperation':
          return sendUserOperation(network, params);
        case 'pimlico_sendUserOperationNow':
          return sendNow(network, params);
        case 'eth_getUserOperationByHash': {
          const row = await findOp(params[0]);
          if (!row || row.status === 'replaced') return null;
          return {
            userOperation: row.op,
            entryPoint: row.entry_point,
            transactionHash: row.status === 'included' ? row.tx_hash : null,
            blockHash: row.status === 'included' ? row.block_hash : null,
            blockNumber: row.status === 'included' && row.block_number !== null ? hex(BigInt(row.block_number)) : null,
          };
        }
        case 'eth_getUserOperationReceipt':
          return receiptOf(network, params[0]);
        case 'pimlico_getUserOperationStatus': {
          const row = await findOp(params[0]);
          if (!row) return { status: 'not_found', transactionHash: null };
          const status = {
            pending: 'not_submitted',
            submitted: 'submitted',
            included: 'included',
            failed: 'rejected',
            replaced: 'rejected',
          }[row.status];
          return { status, transactionHash: row.tx_hash };
        }
        case 'pimlico_getUserOperationGasPrice':
          return quoteUserOperationGasPrice(clientOf(network));
        default:
          if (method.startsWith('debug_bundler_')) return debugMethod(network, method, params);
          throw new BundlerRpcError(bundlerErrorCodes.methodNotFound, `the bundler has no method '${method}'`);
      }
    },
  };
}

export type BundlerService = ReturnType<typeof createBundlerService>;
export type { AnyUserOperation };
