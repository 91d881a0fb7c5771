import { type JsonRpcCall, jsonRpcErrorCodes, rpcErrorText } from '../../jsonrpc/messages.ts';
import { formatRpcAnswer, splitRpcAnswer } from '../../jsonrpc/raw-answer.ts';
import type { SendRpc } from '../send-rpc.ts';
import {
  type BlockRange,
  bisectRange,
  namesFinalityTag,
  resolveLogsRange,
  splitEnd,
  splitRangeTo,
  type TagBlocks,
} from './block-range.ts';
import { isRangeTooLargeError } from './range-error.ts';

export interface GetLogsRequest {
  readonly call: JsonRpcCall;
  /** The call's id as JSON text. */
  readonly idJson: string;
  /** The call as the proxy rebuilt it (src/jsonrpc/messages.ts formatCall): forwarded as it is when no split is needed. */
  readonly body: string;
  /** Latest known block number (the served tip), to resolve `latest` (and a missing bound). */
  readonly head: number | undefined;
  /** The network's `finalized` and `safe` blocks, which those tags stand for (never `latest`). */
  readonly tags: TagBlocks;
  /**
   * The widest range worth one call: the cap the upstreams taught (their own error words), else the
   * network's `get_logs_max_range`. Asked again after a refusal, which may have taught one.
   */
  maxRange(): number;
  /** Each piece goes with its own params, so the pool sends it to an upstream that has its blocks. */
  readonly send: SendRpc;
  /** Whether the answer may be stored (each piece then passes the integrity checks). */
  readonly stored: boolean;
}

/** Sub-requests under way at once for one call: enough to hide latency, few enough to spare the upstream. */
const concurrency = 4;
/** Upstream calls one eth_getLogs may cost, bisections included. */
const maxSubRequests = 1_000;

/** An answer (an error from the upstream) to return to the client as it is. */
class FinalAnswer {
  constructor(readonly text: string) {}
}

/**
 * eth_getLogs over a range wider than the upstreams allow: split into `maxRange()` pieces run
 * `concurrency` at a time, each halved again while the upstream says the range is too large. Pieces
 * are disjoint and in order and each upstream answer is in (block, log index) order, so joining their
 * raw arrays gives the bytes the node would answer for the whole range.
 */
export async function forwardGetLogs(request: GetLogsRequest): Promise<string> {
  const { call, idJson, stored } = request;
  const filter = Array.isArray(call.params) ? (call.params[0] as Record<string, unknown>) : undefined;
  const range = resolveLogsRange(filter, request.head, request.tags);
  if (!range || !filter) return request.send(request.body, { params: call.params, stored });
  const end = splitEnd(range, request.head);
  if (end - range.from < request.maxRange()) {
    // A tag goes as the number the network's finality decided, so the answer is the same split or not.
    const whole = namesFinalityTag(filter) ? numberedCall(call.id, filter, range) : { body: request.body, params: call.params };
    const text = await request.send(whole.body, { params: whole.params, stored });
    const answer = splitRpcAnswer(text, idJson);
    if (range.to === range.from || answer?.kind !== 'error' || !isRangeTooLargeError(answer.raw)) return text;
  }
  const maxRange = request.maxRange();

  let budget = maxSubRequests;
  const tooWide = () =>
    rpcErrorText(call.id, {
      code: jsonRpcErrorCodes.limit_exceeded,
      message: `eth_getLogs over blocks ${range.from}-${range.to} needs more than ${maxSubRequests} upstream calls: ask for a narrower range`,
    });
  if ((end - range.from + 1) / maxRange > maxSubRequests) return tooWide();
  const gate = createGate(concurrency);
  const fetchPart = async (part: BlockRange): Promise<string[]> => {
    if (--budget < 0) throw new FinalAnswer(tooWide());
    const { body, params } = numberedCall(call.id, filter, part);
    const text = await gate(() => request.send(body, { params, stored }));
    const answer = splitRpcAnswer(text, idJson);
    if (answer?.kind === 'result' && answer.raw.startsWith('[')) {
      const inner = answer.raw.slice(1, -1).trim();
      return inner === '' ? [] : [inner];
    }
    // A node that measures the range by its numbers refuses the piece reaching past the head: the
    // blocks up to the head are halved then, and what lies past it is no longer asked.
    const known = Math.min(part.to, end);
    if (answer?.kind === 'error' && part.to > part.from && isRangeTooLargeError(answer.raw)) {
      if (known === part.from) return fetchPart({ from: part.from, to: known });
      const halves = await Promise.all(bisectRange({ from: part.from, to: known }).map(fetchPart));
      return halves.flat();
    }
    throw new FinalAnswer(text);
  };

  try {
    const parts = await Promise.all(splitRangeTo(range, end, maxRange).map(fetchPart));
    return formatRpcAnswer(idJson, { kind: 'result', raw: `[${parts.flat().join(',')}]` });
  } catch (error) {
    if (error instanceof FinalAnswer) return error.text;
    throw error;
  }
}

const toHex = (block: number) => `0x${block.toString(16)}`;

/** The call over `range` with numeric bounds. */
function numberedCall(id: JsonRpcCall['id'], filter: Record<string, unknown>, range: BlockRange) {
  const params = [{ ...filter, fromBlock: toHex(range.from), toBlock: toHex(range.to) }];
  return { params, body: JSON.stringify({ jsonrpc: '2.0', id: id ?? null, method: 'eth_getLogs', params }) };
}

/** Runs at most `limit` tasks at once; the others wait their turn in order. */
function createGate(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A finishing task hands its slot straight to the next waiter, so `active` never overshoots.
    if (active < limit) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
