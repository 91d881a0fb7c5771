import type { Hex } from 'viem';
import { checkBundleBatch } from '../chains/block-integrity.ts';
import type { AnswerVerdict } from '../chains/read-need.ts';
import { type BatchRead, type RpcAnswer, type RpcCall, requiredAnswerVerdict } from './batch-read.ts';
import { type CallTracerTx, fromCallTracer } from './call-tracer.ts';
import type { RawTrace } from './raw-types.ts';

/** How internal transfers are read: parity `trace_block`, geth `debug_traceBlockByNumber`, or not at all. */
export type TracingMethod = 'trace_block' | 'debug_traceBlockByNumber' | 'none';

/** One block's answers in a bundle batch. */
export interface BlockAnswers {
  readonly number: number;
  readonly block: RpcAnswer | undefined;
  readonly receipts: RpcAnswer | undefined;
  /** The trace call's answer; undefined when the batch asked for no traces. */
  readonly trace: RpcAnswer | undefined;
  /** The traces in the parity shape, when the trace call answered a result. */
  readonly traces: RawTrace[] | undefined;
}

/** A bundle batch as one upstream answered it, with the verdict the pool acts on. */
export interface BundleAnswers {
  readonly blocks: readonly BlockAnswers[];
  readonly verdict: AnswerVerdict;
}

const hex = (value: number): Hex => `0x${value.toString(16)}`;

/** The batch that fetches blocks `from..to` with their receipts and, unless `tracing` is `none`, their traces. */
export function bundleBatch(
  from: number,
  to: number,
  tracing: TracingMethod | 'unknown',
  firstId: number,
): BatchRead<BundleAnswers> {
  const calls: RpcCall[] = [];
  const traceMethod = tracing === 'unknown' ? 'trace_block' : tracing;
  for (let number = from; number <= to; number++) {
    calls.push({ method: 'eth_getBlockByNumber', params: [hex(number), true] });
    calls.push({ method: 'eth_getBlockReceipts', params: [hex(number)] });
    if (traceMethod === 'trace_block') calls.push({ method: traceMethod, params: [hex(number)] });
    if (traceMethod === 'debug_traceBlockByNumber')
      calls.push({ method: traceMethod, params: [hex(number), { tracer: 'callTracer' }] });
  }
  return {
    calls,
    firstId,
    highest: to,
    // Re-executing a block for its traces needs its state; blocks and receipts do not.
    oldestState: traceMethod === 'none' ? -1 : from,
    interpret: (answers) => interpretBundles(answers, from, traceMethod),
    judge: (value) => value.verdict,
  };
}

function interpretBundles(answers: readonly (RpcAnswer | undefined)[], from: number, traceMethod: TracingMethod): BundleAnswers {
  const perBlock = traceMethod === 'none' ? 2 : 3;
  const blocks: BlockAnswers[] = [];
  for (let index = 0; index < answers.length; index += perBlock) {
    const trace = perBlock === 3 ? answers[index + 2] : undefined;
    const traced = trace?.error === undefined && trace?.result !== undefined && trace.result !== null;
    blocks.push({
      number: from + index / perBlock,
      block: answers[index],
      receipts: answers[index + 1],
      trace,
      traces: !traced
        ? undefined
        : traceMethod === 'debug_traceBlockByNumber'
          ? fromCallTracer(trace.result as CallTracerTx[])
          : (trace.result as RawTrace[]),
    });
  }
  return { blocks, verdict: verdictOn(blocks, perBlock === 3) };
}

/**
 * A node that lacks any block of the batch (`null`, "header not found") is `missing`: the pool asks one
 * that has it. Answers that contradict themselves or the request are `corrupt` (never indexed). An
 * error every node would give is left to the reader, which reports it.
 */
function verdictOn(blocks: readonly BlockAnswers[], traced: boolean): AnswerVerdict {
  for (const { number, block, receipts, trace } of blocks) {
    const verdict =
      requiredAnswerVerdict(block, `block ${number}`) ?? requiredAnswerVerdict(receipts, `receipts of block ${number}`);
    if (verdict !== undefined) return verdict;
    if (traced && trace === undefined)
      return { kind: 'corrupt', detail: `no answer to the traces of block ${number} in the batch` };
    // A node without the state to trace the block ("missing trie node"): one that has it may answer.
    const untraced = trace?.error === undefined ? undefined : requiredAnswerVerdict(trace, `traces of block ${number}`);
    if (untraced?.kind === 'missing') return untraced;
    if (block!.error !== undefined || receipts!.error !== undefined) return undefined;
  }
  const problem = checkBundleBatch(
    blocks.map(({ block, receipts, traces }) => ({ block: block!.result, receipts: receipts!.result, traces })),
    blocks[0]?.number ?? 0,
  );
  return problem === undefined ? undefined : { kind: 'corrupt', detail: `${problem.code}: ${problem.detail}` };
}
