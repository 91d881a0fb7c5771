import type { ChainCaller } from './chain-caller.ts';
import { type CallFrame, revertReasonOf, type SimulatedLog, type SimulatedTransaction } from './simulation-outcome.ts';
import { type ExecutionFormat, parseExecutionParams } from './simulation-params.ts';
import { traceCalls } from './simulation-run.ts';

/** One call of the trace in Alchemy's shape (upper-case type, hex quantities); NESTED adds `calls` and `logs`. */
export interface ExecutionCall {
  type: string;
  from: string;
  to: string;
  value: string;
  gas: string;
  gasUsed: string;
  input: string;
  output: string;
  error?: string;
  revertReason?: string;
  calls?: ExecutionCall[];
  logs?: SimulatedLog[];
}

/** Alchemy's answer for one simulated transaction. */
export interface ExecutionResult {
  calls: ExecutionCall[];
  logs: SimulatedLog[];
  error?: string;
  revertReason?: string;
}

function callOf(frame: CallFrame): ExecutionCall {
  const call: ExecutionCall = {
    type: frame.type.toUpperCase(),
    from: frame.from.toLowerCase(),
    to: (frame.to ?? '').toLowerCase(),
    value: frame.value ?? '0x0',
    gas: frame.gas ?? '0x0',
    gasUsed: frame.gasUsed ?? '0x0',
    input: frame.input ?? '0x',
    output: frame.output ?? '0x',
  };
  if (frame.error !== undefined) call.error = frame.error;
  const reason = frame.revertReason ?? (frame.error !== undefined ? revertReasonOf(frame.output) : undefined);
  if (reason !== undefined) call.revertReason = reason;
  return call;
}

/** Depth first, the order the calls were made. */
function flatCalls(frame: CallFrame, into: ExecutionCall[] = []): ExecutionCall[] {
  into.push(callOf(frame));
  for (const child of frame.calls ?? []) flatCalls(child, into);
  return into;
}

function nestedCall(frame: CallFrame): ExecutionCall {
  const logs = (frame.logs ?? []).map(({ address, topics, data }) => ({ address: address.toLowerCase(), topics, data }));
  return { ...callOf(frame), calls: (frame.calls ?? []).map(nestedCall), logs };
}

/** The trace of one transaction as Alchemy answers it: its calls, the logs that took effect, its error. */
export function executionResultOf(outcome: SimulatedTransaction, format: ExecutionFormat): ExecutionResult {
  const logs = outcome.steps.flatMap((step) =>
    step.kind === 'log' ? [{ address: step.log.address.toLowerCase(), topics: step.log.topics, data: step.log.data }] : [],
  );
  const trace = outcome.trace;
  const result: ExecutionResult = {
    calls: trace === undefined ? [] : format === 'NESTED' ? [nestedCall(trace)] : flatCalls(trace),
    logs,
  };
  if (outcome.error !== undefined) {
    result.error = outcome.error.message;
    if (outcome.error.revertReason !== undefined) result.revertReason = outcome.error.revertReason;
  }
  return result;
}

/** `alchemy_simulateExecution [transaction, block?]` or `[format, transaction, block?]`. */
export async function simulateExecution(params: unknown, chain: ChainCaller): Promise<ExecutionResult> {
  const { calls, block, format } = parseExecutionParams(params, false);
  const [outcome] = await traceCalls(chain, calls, block);
  return executionResultOf(outcome!, format);
}

/** `alchemy_simulateExecutionBundle [[transaction, …], block?]`: each transaction traced on the state the earlier ones leave. */
export async function simulateExecutionBundle(params: unknown, chain: ChainCaller): Promise<ExecutionResult[]> {
  const { calls, block, format } = parseExecutionParams(params, true);
  return (await traceCalls(chain, calls, block)).map((outcome) => executionResultOf(outcome, format));
}
