import { type ChainCaller, ChainRpcError } from './chain-caller.ts';
import {
  type CallFrame,
  nativeTransferLogAddress,
  refusedOutcome,
  revertError,
  type SimulatedLog,
  type SimulatedTransaction,
  type SimulationStep,
  stepsOfFrame,
  transferTopic,
  wordAddress,
} from './simulation-outcome.ts';
import type { SimulationCall } from './simulation-params.ts';

/** The node has no such method (or says it is not supported): try the other way. */
const unsupportedCodes = new Set([-32601, -32004]);
/**
 * Errors that are the proxy's or the request's, passed on unchanged: bad params, internal, limit
 * exceeded, a key's restriction. Any other error of the node means it refused the transactions
 * (insufficient funds, a VM error) and becomes their simulated `error`, as Alchemy reports it.
 */
const passedOnCodes = new Set([-32600, -32602, -32603, -32005, -32010]);

function isUnsupported(error: unknown): boolean {
  return error instanceof ChainRpcError && unsupportedCodes.has(error.error.code);
}

/** A node error that is the simulation's outcome (the transactions cannot run), or undefined. */
function refusal(error: unknown): ChainRpcError | undefined {
  if (!(error instanceof ChainRpcError)) return undefined;
  return unsupportedCodes.has(error.error.code) || passedOnCodes.has(error.error.code) ? undefined : error;
}

interface SimulateV1Call {
  status?: string;
  gasUsed?: string;
  returnData?: string;
  logs?: SimulatedLog[];
  error?: { code?: number; message?: string; data?: string };
}

/** eth_simulateV1's native-transfer logs as value moves; other logs as they are. */
function stepOfLog(log: SimulatedLog): SimulationStep {
  if (log.address.toLowerCase() === nativeTransferLogAddress && log.topics[0] === transferTopic && log.topics.length === 3) {
    return { kind: 'native', from: wordAddress(log.topics[1]!), to: wordAddress(log.topics[2]!), value: BigInt(log.data) };
  }
  return { kind: 'log', log };
}

/** geth's code for a VM error other than a revert (out of gas, an invalid opcode): its message is the error. */
const vmErrorCode = -32015;

function outcomeOfSimulateV1(call: SimulateV1Call): SimulatedTransaction {
  if (call.status === '0x1') return { gasUsed: call.gasUsed, steps: (call.logs ?? []).map(stepOfLog) };
  // A failed call is a revert (geth: code 3 with the data; anvil: -3200 "execution failed", the data in returnData).
  const error =
    call.error?.code === vmErrorCode
      ? { message: call.error.message ?? 'execution failed' }
      : revertError(call.error?.data ?? call.returnData);
  return { gasUsed: call.gasUsed, error, steps: [] };
}

/**
 * The calls run in order in one simulated block on top of `block` (eth_simulateV1, `traceTransfers` for
 * the native moves), each seeing what the earlier ones left. Fees are not charged (`validation` off).
 */
async function simulateV1(chain: ChainCaller, calls: readonly SimulationCall[], block: string): Promise<SimulatedTransaction[]> {
  const result = (await chain('eth_simulateV1', [
    { blockStateCalls: [{ calls }], traceTransfers: true, validation: false },
    block,
  ])) as { calls?: SimulateV1Call[] }[] | null;
  const answered = result?.[0]?.calls;
  if (!Array.isArray(answered) || answered.length !== calls.length) {
    throw new ChainRpcError({ code: -32603, message: 'the node answered eth_simulateV1 without a result for every transaction' });
  }
  return answered.map(outcomeOfSimulateV1);
}

type StateOverrides = Record<string, { balance?: string; nonce?: string; code?: string; stateDiff?: Record<string, string> }>;
interface PrestateAccount {
  balance?: string;
  nonce?: number | string;
  code?: string;
  storage?: Record<string, string>;
}
const zeroWord = `0x${'0'.repeat(64)}`;

/**
 * Folds a transaction's prestateTracer diff into the overrides the next one runs under: balances,
 * nonces, code, and storage (a slot in `pre` and missing from `post` was cleared to zero).
 */
export function foldStateDiff(
  overrides: StateOverrides,
  diff: { pre?: Record<string, PrestateAccount>; post?: Record<string, PrestateAccount> },
): StateOverrides {
  const next: StateOverrides = structuredClone(overrides);
  const accountOf = (address: string) => {
    const key = address.toLowerCase();
    const account = next[key] ?? {};
    next[key] = account;
    return account;
  };
  const setSlot = (address: string, slot: string, value: string) => {
    const account = accountOf(address);
    account.stateDiff = { ...account.stateDiff, [slot]: value };
  };
  for (const [address, pre] of Object.entries(diff.pre ?? {})) {
    const post = diff.post?.[address] ?? {};
    for (const slot of Object.keys(pre.storage ?? {})) {
      if (post.storage?.[slot] === undefined) setSlot(address, slot, zeroWord);
    }
  }
  for (const [address, post] of Object.entries(diff.post ?? {})) {
    const account = accountOf(address);
    if (post.balance !== undefined) account.balance = post.balance;
    if (post.nonce !== undefined) account.nonce = `0x${BigInt(post.nonce).toString(16)}`;
    if (post.code !== undefined) account.code = post.code;
    for (const [slot, value] of Object.entries(post.storage ?? {})) setSlot(address, slot, value);
  }
  return next;
}

function traceOptions(tracer: object, overrides: StateOverrides): object {
  return Object.keys(overrides).length === 0 ? tracer : { ...tracer, stateOverrides: overrides };
}

/**
 * The calls traced one by one with debug_traceCall's callTracer (logs included); each later call runs
 * under state overrides made of the earlier ones' prestateTracer diffs, so a bundle chains its state.
 */
export async function traceCalls(
  chain: ChainCaller,
  calls: readonly SimulationCall[],
  block: string,
): Promise<SimulatedTransaction[]> {
  const outcomes: SimulatedTransaction[] = [];
  let overrides: StateOverrides = {};
  for (const [i, call] of calls.entries()) {
    let frame: CallFrame;
    try {
      const callTracer = { tracer: 'callTracer', tracerConfig: { withLog: true } };
      frame = (await chain('debug_traceCall', [call, block, traceOptions(callTracer, overrides)])) as CallFrame;
    } catch (error) {
      const refused = refusal(error);
      if (refused === undefined) throw error;
      outcomes.push(...refusedOutcome(refused.error, calls.length - i));
      return outcomes;
    }
    outcomes.push(outcomeOfFrame(frame));
    if (i < calls.length - 1) {
      const prestate = { tracer: 'prestateTracer', tracerConfig: { diffMode: true } };
      const diff = (await chain('debug_traceCall', [call, block, traceOptions(prestate, overrides)])) as Parameters<
        typeof foldStateDiff
      >[1];
      overrides = foldStateDiff(overrides, diff);
    }
  }
  return outcomes;
}

function outcomeOfFrame(frame: CallFrame): SimulatedTransaction {
  if (frame.error === undefined) return { gasUsed: frame.gasUsed, steps: stepsOfFrame(frame), trace: frame };
  const reverted = /revert/i.test(frame.error) ? revertError(frame.output) : { message: frame.error };
  return { gasUsed: frame.gasUsed, error: reverted, steps: [], trace: frame };
}

/**
 * Whether the node's eth_simulateV1 listed an ETH move made inside the transaction (by a contract it
 * called), beyond the transaction's own value. anvil (1.7) lists such a move even when the inner call
 * that made it reverted and so moved nothing (geth drops it with the reverted frame's logs); which
 * frame a move came from is not in the answer, so these transactions are traced instead.
 */
function movesEthInside(call: SimulationCall, outcome: SimulatedTransaction): boolean {
  const moves = outcome.steps.filter((step) => step.kind === 'native').length;
  const ownValue = call.value !== undefined && BigInt(call.value) > 0n ? 1 : 0;
  return moves > ownValue;
}

/**
 * anvil's eth_simulateV1 refuses a call without `to` (a contract creation) as invalid params
 * ("missing keys: [\"to\"]"), which its debug_traceCall runs: a bundle that deploys is traced.
 */
function refusesCreation(error: unknown, calls: readonly SimulationCall[]): boolean {
  return error instanceof ChainRpcError && error.error.code === -32602 && calls.some((call) => call.to === undefined);
}

/** A node upgraded to one with eth_simulateV1 is tried again after this long. */
const rememberMs = 10 * 60 * 1000;

/** Networks whose upstream answered that it has no eth_simulateV1, until when (ms): they go straight to tracing. */
export type SimulationMemory = Map<string, number>;

/**
 * The calls' outcomes (asset moves in execution order), by eth_simulateV1 where the upstream has it,
 * else by debug_traceCall (traceCalls); a refusal of the node (insufficient funds…) is each call's error.
 */
export async function simulateCalls(
  chain: ChainCaller,
  noSimulateV1: SimulationMemory,
  networkKey: string,
  calls: readonly SimulationCall[],
  block: string,
  now: () => number = Date.now,
): Promise<SimulatedTransaction[]> {
  if ((noSimulateV1.get(networkKey) ?? 0) <= now()) {
    try {
      const outcomes = await simulateV1(chain, calls, block);
      if (!calls.some((call, i) => movesEthInside(call, outcomes[i]!))) return outcomes;
      return await traceCalls(chain, calls, block).catch((error: unknown) => {
        if (isUnsupported(error)) return outcomes;
        throw error;
      });
    } catch (error) {
      const refused = refusal(error);
      if (refused !== undefined) return refusedOutcome(refused.error, calls.length);
      if (refusesCreation(error, calls)) return traceCalls(chain, calls, block);
      if (!isUnsupported(error)) throw error;
      noSimulateV1.set(networkKey, now() + rememberMs);
    }
  }
  return traceCalls(chain, calls, block);
}
