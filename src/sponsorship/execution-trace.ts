import {
  type Address,
  concat,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  type PublicClient,
  parseAbi,
  type StateOverride,
} from 'viem';
import type { UserOperation } from 'viem/account-abstraction';
import { delegationOverride } from '../bundler/eip7702-delegation.ts';
import { shortMessage } from '../bundler/simulation.ts';
import { mergeStateOverrides, overrideOfStateDiff, rpcStateOverride } from '../bundler/state-override.ts';
import { type AnyUserOperation, deploysSender } from '../bundler/user-operation.ts';
import type { CallFrame } from '../bundler/validation-call-tree.ts';
import type { Network } from '../chains/registry.ts';
import { AppError, invalidRequest, isAppError } from '../core/errors.ts';
import { type ExecutionCalls, reachedCallsOf } from './reached-calls.ts';
import { noteCallTracing, unavailableEnforcement, untraceableReason } from './trace-capability.ts';

const senderCreatorAbi = parseAbi(['function createSender(bytes initCode) returns (address)']);

/**
 * The SenderCreator of an EntryPoint: every version (v0.6, v0.7, v0.8) creates it first thing in its
 * constructor, so it is the first address the EntryPoint created (nonce 1); v0.8's `senderCreator()`
 * answers the same.
 */
export const senderCreatorOf = (entryPoint: Address): Address => getContractAddress({ from: entryPoint, nonce: 1n });

type Trace = (call: { from: Address; to: Address; data: Hex }, options: Record<string, unknown>) => Promise<unknown>;

/**
 * What the op's execution reaches (reached-calls.ts), for a policy's call rules: traced by the node,
 * or why it cannot be (recorded for the policy answer's `call_rules_enforcement`). A failure that is
 * not the node lacking the tracer is a 503 (the op may be tried again).
 */
export async function executionCallsOf(
  network: Network,
  client: PublicClient,
  entryPoint: Address,
  op: AnyUserOperation,
): Promise<ExecutionCalls> {
  let frame: CallFrame;
  try {
    frame = await traceExecution(client, entryPoint, op);
  } catch (error) {
    if (isAppError(error)) throw error;
    const reason = untraceableReason(network, error);
    if (reason === undefined)
      throw new AppError(
        'service_unavailable',
        `the op's execution could not be traced on ${network.config.chain}/${network.config.network} to check the policy's contract and method rules (${shortMessage(error)})`,
        { cause: error },
      );
    noteCallTracing(network, unavailableEnforcement(reason));
    return { kind: 'untraceable', reason };
  }
  noteCallTracing(network, 'traced');
  return { kind: 'traced', calls: reachedCallsOf(frame, op.sender) };
}

/**
 * The op's execution phase as the node's callTracer sees it: the EntryPoint's call of the sender with
 * the op's callData, as it makes it after validation, with the gas the node allows a call (so nothing
 * the op could reach with more gas is left out). A sender not deployed yet is deployed first as the
 * EntryPoint does it, by its SenderCreator running the op's initCode (the factory sees the
 * SenderCreator as its caller), and the execution is traced on the state that leaves (prestateTracer in
 * diff mode): the account's real code runs, whatever its factory. An EIP-7702 sender runs its delegate.
 */
export async function traceExecution(client: PublicClient, entryPoint: Address, op: AnyUserOperation): Promise<CallFrame> {
  const trace: Trace = (call, options) =>
    client.request({ method: 'debug_traceCall' as never, params: [call, 'latest', options] as never });
  let override = delegationOverride(op);
  if (deploysSender(op)) override = mergeStateOverrides(override, await deployedState(trace, entryPoint, op, override));
  const frame = await trace(
    { from: entryPoint, to: op.sender, data: op.callData },
    { tracer: 'callTracer', stateOverrides: rpcStateOverride(override) },
  );
  return frame as CallFrame;
}

/** The state the op's deployment leaves: the sender's code and storage, the factory's nonce, and whatever else it changed. */
async function deployedState(
  trace: Trace,
  entryPoint: Address,
  op: AnyUserOperation,
  override: StateOverride,
): Promise<StateOverride> {
  const v07 = op as UserOperation<'0.7'>;
  const [initCode, field] =
    'initCode' in op ? [op.initCode as Hex, 'initCode'] : [concat([v07.factory as Hex, v07.factoryData ?? '0x']), 'factory'];
  const diff = await trace(
    {
      from: entryPoint,
      to: senderCreatorOf(entryPoint),
      data: encodeFunctionData({ abi: senderCreatorAbi, functionName: 'createSender', args: [initCode] }),
    },
    { tracer: 'prestateTracer', tracerConfig: { diffMode: true }, stateOverrides: rpcStateOverride(override) },
  );
  // The EntryPoint is the call's sender here: its nonce moved only because of that.
  const deployed = overrideOfStateDiff(diff as Parameters<typeof overrideOfStateDiff>[0], [entryPoint]);
  const sender = op.sender.toLowerCase();
  if (!deployed.some((entry) => entry.address.toLowerCase() === sender && entry.code !== undefined && entry.code !== '0x'))
    throw invalidRequest(
      `user_operation.${field}`,
      `does not deploy the sender ${op.sender} (it is deployed already, or the factory makes another address): the EntryPoint would refuse the op`,
    );
  return deployed;
}
