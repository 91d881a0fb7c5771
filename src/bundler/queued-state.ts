import {
  type Address,
  encodeAbiParameters,
  encodeFunctionData,
  type Hex,
  keccak256,
  type PublicClient,
  type StateOverride,
  toHex,
} from 'viem';
import { toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { entryPointV06Abi, entryPointV07Abi } from '../erc4337/contracts/abis.ts';
import { authorizationOf, delegationOverride } from './eip7702-delegation.ts';
import { readOnChainNonce } from './entry-points.ts';
import { BundlerRpcError, bundlerErrorCodes } from './rpc-errors.ts';
import { shortMessage, v06Struct } from './simulation.ts';
import { mergeStateOverrides, overrideOfStateDiff, rpcStateOverride } from './state-override.ts';
import { type AnyUserOperation, deploysSender, type EntryPointVersion, parseUserOperation } from './user-operation.ts';

/** NonceManager's mapping sits in the EntryPoint's storage slot 1 (after StakeManager's deposits), in v0.6 and v0.7. */
const nonceMappingSlot = 1n;
/** How many times the earlier ops are run when some of them land meanwhile. */
const maxRuns = 3;
/** The caller of the traced handleOps (and its beneficiary): left out of the state it yields. */
const tracingCaller: Address = '0x000000000000000000000000000000000000bEEF';

/** The storage slot of nonceSequenceNumber[sender][key] in the EntryPoint. */
export function nonceSlot(sender: Address, key: bigint): Hex {
  const inner = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [sender, nonceMappingSlot]));
  return keccak256(encodeAbiParameters([{ type: 'uint192' }, { type: 'bytes32' }], [key, inner]));
}

/** The override that makes the EntryPoint expect `nonce` next for its key (its sequence in the slot). */
export function nonceOverride(entryPoint: Address, sender: Address, nonce: bigint): StateOverride {
  return [
    {
      address: entryPoint,
      stateDiff: [{ slot: nonceSlot(sender, nonce >> 64n), value: toHex(nonce & ((1n << 64n) - 1n), { size: 32 }) }],
    },
  ];
}

export interface QueuedStateInput {
  client: PublicClient;
  version: EntryPointVersion;
  entryPoint: Address;
  /** The op to validate or estimate. */
  op: AnyUserOperation;
  /** The sender's pending ops on the op's key that come before it, in nonce order (the first is the next on chain). */
  earlier: readonly AnyUserOperation[];
}

/**
 * The state an op queued behind pending ops of its sender is validated in: as those ops will leave it.
 * When none of them deploys the sender or delegates it (EIP-7702), that is only the EntryPoint's
 * nonce for the key, overridden. Otherwise the later op runs code that is not on chain yet: the
 * earlier ops are run in one `handleOps` (debug_traceCall with `prestateTracer` in diff mode) and
 * everything they change (the account's code and storage, the EntryPoint's nonce and deposits, the
 * balances) is put in place. That holds for any factory, not only SimpleAccount's. 'stale' when the
 * earlier ops do not run and none of them landed (one no longer validates).
 */
export async function queuedStateOverride(input: QueuedStateInput): Promise<StateOverride | 'stale'> {
  const { client, entryPoint, op } = input;
  let { earlier } = input;
  const nonce = nonceOverride(entryPoint, op.sender, op.nonce);
  let ran: StateOverride | 'stale' = 'stale';
  // Earlier ops may land while this runs (their bundle is on its way): those are dropped from the run.
  for (let attempt = 0; attempt < maxRuns; attempt++) {
    if (earlier.length === 0) return [];
    if (!earlier.some((before) => deploysSender(before) || authorizationOf(before))) return nonce;
    ran = await runEarlierOps({ ...input, earlier });
    if (ran !== 'stale') break;
    const onChain = await readOnChainNonce(client, entryPoint, op.sender, op.nonce >> 64n);
    const left = earlier.filter((before) => before.nonce >= onChain);
    if (left.length === earlier.length) return 'stale';
    earlier = left;
  }
  if (ran === 'stale') return ran;
  // The op's own authorization, when it carries one, replaces an earlier delegation: it is added by the simulation.
  const withoutSenderCode = authorizationOf(op)
    ? ran.map((entry) => (entry.address.toLowerCase() === op.sender.toLowerCase() ? { ...entry, code: undefined } : entry))
    : ran;
  return mergeStateOverrides(withoutSenderCode, nonce);
}

interface PrestateDiff {
  pre: Record<string, { storage?: Record<Hex, Hex> }>;
  post: Record<string, { storage?: Record<Hex, Hex> }>;
}

/**
 * The earlier ops run by handleOps at the head; the state they leave, as an override. 'stale' when
 * they did not all run: one no longer validates, or they landed meanwhile (the caller reads again).
 */
async function runEarlierOps({ client, version, entryPoint, op, earlier }: QueuedStateInput): Promise<StateOverride | 'stale'> {
  const data =
    version !== '0.6'
      ? encodeFunctionData({
          abi: entryPointV07Abi,
          functionName: 'handleOps',
          args: [earlier.map((before) => toPackedUserOperation(before as UserOperation<'0.7'>)), tracingCaller],
        })
      : encodeFunctionData({
          abi: entryPointV06Abi,
          functionName: 'handleOps',
          args: [earlier.map((before) => v06Struct(before)), tracingCaller],
        });
  // A bundle carries the authorizations; a traced call cannot, so the delegations are overridden instead.
  const delegations = mergeStateOverrides(...earlier.map((before) => delegationOverride(before)));
  let diff: PrestateDiff;
  try {
    diff = (await client.request({
      method: 'debug_traceCall' as never,
      params: [
        { from: tracingCaller, to: entryPoint, data },
        'latest',
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true }, stateOverrides: rpcStateOverride(delegations) },
      ] as never,
    })) as PrestateDiff;
  } catch (error) {
    throw new BundlerRpcError(
      bundlerErrorCodes.rejectedByAccount,
      `the sender's earlier operation that deploys (or delegates) the account is still pending, and this node cannot run it ahead to validate one queued behind it (debug_traceCall: ${shortMessage(error)}); send this one once that has landed`,
    );
  }
  const override = mergeStateOverrides(delegations, overrideOfStateDiff(diff, [tracingCaller]));
  // The earlier ops ran only if they moved the nonce to this op's.
  const last = earlier[earlier.length - 1]!;
  const expected = toHex((last.nonce & ((1n << 64n) - 1n)) + 1n, { size: 32 });
  const slot = nonceSlot(op.sender, op.nonce >> 64n).toLowerCase();
  const moved = override
    .find((entry) => entry.address.toLowerCase() === entryPoint.toLowerCase())
    ?.stateDiff?.find((entry) => entry.slot.toLowerCase() === slot)?.value;
  return moved?.toLowerCase() === expected.toLowerCase() ? override : 'stale';
}

/**
 * The sender's queued ops that run before an op of nonce `nonce`: the consecutive nonces of its key
 * from the one next on chain, as far as the mempool holds them, in nonce order.
 */
export function earlierOpsOf(
  rows: readonly { nonce: string; op: unknown }[],
  version: EntryPointVersion,
  onChain: bigint,
  nonce: bigint,
): AnyUserOperation[] {
  const byNonce = new Map(rows.map((row) => [BigInt(row.nonce), row]));
  const ops: AnyUserOperation[] = [];
  for (let next = onChain; next < nonce; next++) {
    const row = byNonce.get(next);
    if (!row) break;
    ops.push(parseUserOperation(version, row.op));
  }
  return ops;
}
