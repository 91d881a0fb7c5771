import type { LogsRangeCap } from './behaviour.ts';
import { resolveBlockTag } from './block-tags.ts';
import { type CallAnswer, errorReply, isHash, type RpcCall, resultReply, toQuantity } from './json-rpc.ts';
import { refuseWideLogsRange } from './logs-range-cap.ts';
import { forward, isHashAboveHead, type NodeView } from './node-view.ts';

interface LogFilter {
  fromBlock?: unknown;
  toBlock?: unknown;
  blockHash?: unknown;
}

/**
 * eth_getLogs on a node that may lag and may cap ranges. Tags resolve against the node's own head; the cap
 * is checked on the range so resolved; a lagging node serves only up to its head (a range wholly above
 * it is empty), and a block hash it has not imported is geth's "unknown block".
 */
export async function answerGetLogs(call: RpcCall, node: NodeView, cap: LogsRangeCap | undefined): Promise<CallAnswer> {
  const filter = call.params?.[0] as LogFilter | undefined;
  if (typeof filter !== 'object' || filter === null) return forward(node, call);
  if (filter.blockHash !== undefined) return answerLogsOfBlock(call, node, filter.blockHash);
  if (node.lag === 0 && cap === undefined) return forward(node, call);

  const head = await node.head();
  const from = resolveBlockTag(filter.fromBlock, head);
  const to = resolveBlockTag(filter.toBlock, head);
  if (from === undefined || to === undefined) return forward(node, call);
  const refusal = cap === undefined ? undefined : refuseWideLogsRange(cap, from, to);
  if (refusal !== undefined) return errorReply(call, refusal.error, refusal.httpStatus);
  if (node.lag === 0) return forward(node, call);
  if (from > head) return resultReply(call, []);
  const clipped = { ...filter, fromBlock: toQuantity(from), toBlock: toQuantity(Math.min(to, head)) };
  return forward(node, { ...call, params: [clipped, ...(call.params ?? []).slice(1)] });
}

async function answerLogsOfBlock(call: RpcCall, node: NodeView, blockHash: unknown): Promise<CallAnswer> {
  if (node.lag > 0 && isHash(blockHash) && (await isHashAboveHead(node, blockHash))) {
    return errorReply(call, { code: -32000, message: 'unknown block' });
  }
  return forward(node, call);
}
