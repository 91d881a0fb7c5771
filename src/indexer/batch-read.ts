import type { AnswerVerdict, ReadNeed } from '../chains/read-need.ts';
import { retryableKindOf } from '../chains/retryable.ts';

export interface RpcCall {
  method: string;
  params: unknown[];
}

export interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A node answered a request the indexer needs with an error or nothing. */
export class ChainReadError extends Error {
  override name = 'ChainReadError';
}

/**
 * No upstream has the block yet (every one asked answered `null`): a node a block or two behind the
 * tip, not a failure and never a reorg. The indexer asks again soon.
 */
export class BlockUnavailableError extends ChainReadError {
  override name = 'BlockUnavailableError';
}

/** Sends a body to the network's upstreams, routed by `need` and judged by `need.judge`. */
export type SendRead = (body: string, need: ReadNeed) => Promise<string>;

export interface BatchRead<T> {
  calls: readonly RpcCall[];
  /** The id of the first call; the others follow. */
  firstId: number;
  /** The highest block the calls name (routing: an upstream that has it). */
  highest: number;
  /** The lowest block whose state the calls need (old state needs an archive node); -1: none. */
  oldestState: number;
  /** What the answers say (in call order; `undefined`: the node left that call unanswered), worked out once per answer text. */
  interpret(answers: readonly (RpcAnswer | undefined)[]): T;
  /** Whether the pool may use an answer: `missing` and `corrupt` send the batch to another upstream. */
  judge(value: T): AnswerVerdict;
}

/**
 * Sends `read.calls` as one JSON-RPC batch. Each answer text is parsed and interpreted once: by the judge,
 * while the pool decides whether to use it; the text the pool hands back is one the judge saw (or, when
 * every upstream lacked the block, the last such answer), so its interpretation is reused.
 */
export async function sendBatch<T>(send: SendRead, read: BatchRead<T>): Promise<T> {
  const { calls, firstId } = read;
  const body = JSON.stringify(calls.map((call, index) => ({ jsonrpc: '2.0', id: firstId + index, ...call })));
  const seen: { text: string; value: T | ChainReadError }[] = [];
  const interpreted = (text: string): T | ChainReadError => {
    // The pool hands back the very string it judged: `===` matches it by reference first.
    const known = seen.find((entry) => entry.text === text);
    if (known) return known.value;
    const answers = answersInOrder(text, firstId, calls);
    const value = answers instanceof ChainReadError ? answers : read.interpret(answers);
    if (seen.length < 4) seen.push({ text, value });
    return value;
  };
  const need: ReadNeed = {
    method: calls[0]?.method ?? '',
    methods: calls.map((call) => call.method),
    block: read.highest,
    oldest: read.oldestState,
    atTip: false,
    byHash: false,
    logsFrom: -1,
    judge: (text) => {
      const value = interpreted(text);
      // A whole batch refused with one error: the reader reports the node's words.
      return value instanceof ChainReadError ? undefined : read.judge(value);
    },
  };
  const value = interpreted(await send(body, need));
  if (value instanceof ChainReadError) throw value;
  return value;
}

/** The answers to `calls`, in call order (nodes may answer a batch in any order). */
function answersInOrder(text: string, firstId: number, calls: readonly RpcCall[]): (RpcAnswer | undefined)[] | ChainReadError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new ChainReadError('the upstream answered a batch with something that is not JSON');
  }
  if (!Array.isArray(parsed)) {
    const message = (parsed as RpcAnswer | null)?.error?.message;
    return new ChainReadError(`the upstream answered a batch with ${message ?? 'a single answer'}`);
  }
  const byId = new Map((parsed as (RpcAnswer | null)[]).map((answer) => [answer?.id, answer ?? undefined]));
  return calls.map((_, index) => byId.get(firstId + index));
}

/** Whether an answer is the `null` (or absent result) of a node that does not have the block. */
export function isNullResult(answer: RpcAnswer): boolean {
  return answer.error === undefined && (answer.result === null || answer.result === undefined);
}

/**
 * What one answer the indexer requires says about the node: `missing`, it does not have the block
 * (`null`, or "header not found" and kin); `corrupt`, the call went unanswered; undefined: a result,
 * or an error every node would give (the reader reports it).
 */
export function requiredAnswerVerdict(answer: RpcAnswer | undefined, what: string): AnswerVerdict {
  if (answer === undefined) return { kind: 'corrupt', detail: `no answer to ${what} in the batch` };
  if (answer.error !== undefined) {
    const { code, message } = answer.error;
    return retryableKindOf({ code, message: String(message) }) === 'behind'
      ? { kind: 'missing', detail: `${what}: ${message}` }
      : undefined;
  }
  return isNullResult(answer) ? { kind: 'missing', detail: `${what} answered null` } : undefined;
}
