import { decodeErrorResult, type Hex } from 'viem';
import type { JsonRpcErrorObject } from '../jsonrpc/messages.ts';

/** A log as the node reports it. */
export interface SimulatedLog {
  readonly address: string;
  readonly topics: readonly string[];
  readonly data: string;
}

/** What happened, in execution order: a native value move or an emitted log (only those that took effect). */
export type SimulationStep =
  | { readonly kind: 'native'; readonly from: string; readonly to: string; readonly value: bigint }
  | { readonly kind: 'log'; readonly log: SimulatedLog };

/** One frame of the node's callTracer (geth's shape), logs included (`withLog`). */
export interface CallFrame {
  type: string;
  from: string;
  to?: string;
  value?: string;
  gas?: string;
  gasUsed?: string;
  input?: string;
  output?: string;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
  logs?: (SimulatedLog & { position?: string | number })[];
}

/** The simulated outcome of one transaction of a request. */
export interface SimulatedTransaction {
  /** Hex gas used; absent when the node ran nothing (it refused the transaction). */
  readonly gasUsed?: string;
  /** Set when the transaction reverts or cannot run: Alchemy's `error.message`, and the decoded reason. */
  readonly error?: { readonly message: string; readonly revertReason?: string };
  readonly steps: readonly SimulationStep[];
  /** The call tree, when the run traced it (debug_traceCall). */
  readonly trace?: CallFrame;
}

/** eth_simulateV1 reports native transfers (`traceTransfers`) as ERC-20-like Transfer logs from this address. */
export const nativeTransferLogAddress = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
export const transferTopic = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** The 20-byte address in a 32-byte topic or word. */
export const wordAddress = (word: string): string => `0x${word.slice(-40)}`.toLowerCase();

/** `Error(string)` or `Panic(uint256)` of revert data, in words; undefined for custom errors and empty data. */
export function revertReasonOf(data: unknown): string | undefined {
  if (typeof data !== 'string' || data.length < 10) return undefined;
  try {
    const decoded = decodeErrorResult({ abi: [], data: data as Hex });
    if (decoded.errorName === 'Error') return String(decoded.args[0]);
    if (decoded.errorName === 'Panic') return `panic code 0x${(decoded.args[0] as bigint).toString(16)}`;
  } catch {
    // A custom error: the reason stays unknown, as Alchemy leaves it.
  }
  return undefined;
}

/** Alchemy's error of a reverted transaction: `execution reverted`, with the reason when it decodes. */
export function revertError(data: unknown, fallback = 'execution reverted'): { message: string; revertReason?: string } {
  const reason = revertReasonOf(data);
  return reason === undefined ? { message: fallback } : { message: `execution reverted: ${reason}`, revertReason: reason };
}

/** The node refused to run the transactions at all (insufficient funds, a bad nonce…): each gets that error. */
export function refusedOutcome(error: JsonRpcErrorObject, count: number): SimulatedTransaction[] {
  const refused: SimulatedTransaction = { error: { message: error.message }, steps: [] };
  return Array.from({ length: count }, () => refused);
}

/**
 * The steps of a traced transaction in execution order: each frame's value move on entry, then its
 * logs and sub-calls as `position` interleaves them. A frame that failed took nothing effect, its
 * sub-calls included. DELEGATECALL and STATICCALL move no value of their own.
 */
export function stepsOfFrame(frame: CallFrame, steps: SimulationStep[] = []): SimulationStep[] {
  if (frame.error !== undefined) return steps;
  const value = frame.value === undefined ? 0n : BigInt(frame.value);
  const type = frame.type.toUpperCase();
  if (value > 0n && type !== 'DELEGATECALL' && type !== 'STATICCALL' && frame.to !== undefined) {
    steps.push({ kind: 'native', from: frame.from.toLowerCase(), to: frame.to.toLowerCase(), value });
  }
  const calls = frame.calls ?? [];
  const logs = frame.logs ?? [];
  const positionOf = (log: (typeof logs)[number]) => Math.min(Number(log.position ?? calls.length) || 0, calls.length);
  const logsAt = (index: number) => logs.filter((log) => positionOf(log) === index);
  for (let i = 0; i <= calls.length; i++) {
    for (const log of logsAt(i)) steps.push({ kind: 'log', log: { address: log.address, topics: log.topics, data: log.data } });
    if (i < calls.length) stepsOfFrame(calls[i]!, steps);
  }
  return steps;
}
