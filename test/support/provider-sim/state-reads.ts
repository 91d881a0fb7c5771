import type { PruneWording } from './behaviour.ts';
import { resolveBlockParam } from './block-tags.ts';
import { type CallAnswer, errorReply, type RpcCall, toQuantity } from './json-rpc.ts';
import { forward, type NodeView } from './node-view.ts';

/** Where each state read takes its block parameter. */
const blockParamIndex: Record<string, number> = {
  eth_call: 1,
  eth_estimateGas: 1,
  eth_createAccessList: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getTransactionCount: 1,
  eth_getStorageAt: 2,
  eth_getProof: 2,
};

export function isStateRead(method: string): boolean {
  return method in blockParamIndex;
}

export interface PruneRule {
  belowBlocks: number;
  wording: PruneWording;
}

/**
 * A state read on a node that may lag and may be pruned. latest (or no block) means the node's own head;
 * a block above it is geth's "header not found"; a block more than `belowBlocks` under it, on a pruned
 * node, is geth's missing-state error naming the block's state root.
 */
export async function answerStateRead(call: RpcCall, node: NodeView, prune: PruneRule | undefined): Promise<CallAnswer> {
  if (node.lag === 0 && prune === undefined) return forward(node, call);
  const index = blockParamIndex[call.method]!;
  const params = [...(call.params ?? [])];
  const head = await node.head();
  const ref = resolveBlockParam(params[index], head);
  if (ref.kind === 'unreadable') return forward(node, call);
  const number = ref.kind === 'number' ? ref.number : await node.upstream.blockNumberOfHash(ref.hash);
  if (number === undefined) return forward(node, call);
  if (number > head) {
    return errorReply(call, { code: -32000, message: ref.kind === 'hash' ? 'header for hash not found' : 'header not found' });
  }
  if (prune !== undefined && number < head - prune.belowBlocks) {
    return errorReply(call, { code: -32000, message: await missingStateMessage(node, number, prune.wording) });
  }
  if (node.lag === 0 || ref.kind === 'hash') return forward(node, call);
  params[index] = toQuantity(number);
  return forward(node, { ...call, params });
}

/** geth's words: trie/errors.go (hash-based state) and core/state/database_history.go (path-based). */
async function missingStateMessage(node: NodeView, number: number, wording: PruneWording): Promise<string> {
  const block = await node.upstream.result<{ stateRoot: string }>('eth_getBlockByNumber', [toQuantity(number), false]);
  const root = block.stateRoot.slice(2);
  return wording === 'missing-trie-node'
    ? `missing trie node ${root} (path ) <nil>`
    : `historical state ${root} is not available`;
}
