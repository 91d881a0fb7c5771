import { resolveBlockParam } from './block-tags.ts';
import { type CallAnswer, isQuantity, type RpcCall, resultReply, toQuantity } from './json-rpc.ts';
import { forward, isHashAboveHead, type NodeView } from './node-view.ts';

/**
 * Blocks and transactions as a lagging node sees them: anything above its head does not exist yet, so
 * it answers `null`, as geth does for an unknown block or transaction.
 */

export async function answerBlockNumber(call: RpcCall, node: NodeView): Promise<CallAnswer> {
  if (node.lag === 0) return forward(node, call);
  return resultReply(call, toQuantity(await node.head()));
}

/** eth_getBlockByNumber and its kin: first parameter a tag or number (eth_getBlockReceipts: or a hash). */
export async function answerBlockByNumber(call: RpcCall, node: NodeView): Promise<CallAnswer> {
  if (node.lag === 0) return forward(node, call);
  const [block, ...rest] = call.params ?? [];
  const head = await node.head();
  const ref = resolveBlockParam(block, head);
  if (ref.kind === 'hash') return answerBlockByHash(call, node);
  if (ref.kind === 'unreadable') return forward(node, call);
  if (ref.number > head) return resultReply(call, null);
  // Tags are resolved here, against the lagged head: anvil would resolve them against its own.
  return forward(node, { ...call, params: [toQuantity(ref.number), ...rest] });
}

/** eth_getBlockByHash and its kin: first parameter a block hash. */
export async function answerBlockByHash(call: RpcCall, node: NodeView): Promise<CallAnswer> {
  if (node.lag > 0 && (await isHashAboveHead(node, call.params?.[0]))) return resultReply(call, null);
  return forward(node, call);
}

/** eth_getTransactionByHash and eth_getTransactionReceipt: null for a transaction mined above the head. */
export async function answerTransaction(call: RpcCall, node: NodeView): Promise<CallAnswer> {
  const answer = await forward(node, call);
  if (node.lag === 0 || !('result' in answer.reply)) return answer;
  const blockNumber = (answer.reply.result as { blockNumber?: unknown } | null)?.blockNumber;
  if (isQuantity(blockNumber) && Number(blockNumber) > (await node.head())) return resultReply(call, null);
  return answer;
}
