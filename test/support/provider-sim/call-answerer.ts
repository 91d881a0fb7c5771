import type { SimBehaviour } from './behaviour.ts';
import { answerGetLogs } from './get-logs.ts';
import { type CallAnswer, type RpcCall, resultReply, toQuantity } from './json-rpc.ts';
import { answerBlockByHash, answerBlockByNumber, answerBlockNumber, answerTransaction } from './lagging-blocks.ts';
import { createNodeView, forward, type NodeView } from './node-view.ts';
import { answerStateRead, isStateRead } from './state-reads.ts';
import type { Upstream } from './upstream.ts';

type MethodAnswerer = (call: RpcCall, node: NodeView, behaviour: SimBehaviour) => Promise<CallAnswer>;

const byMethod: Record<string, MethodAnswerer> = {
  eth_blockNumber: answerBlockNumber,
  eth_getBlockByNumber: answerBlockByNumber,
  eth_getBlockReceipts: answerBlockByNumber,
  eth_getBlockTransactionCountByNumber: answerBlockByNumber,
  eth_getTransactionByBlockNumberAndIndex: answerBlockByNumber,
  eth_getUncleCountByBlockNumber: answerBlockByNumber,
  eth_getBlockByHash: answerBlockByHash,
  eth_getBlockTransactionCountByHash: answerBlockByHash,
  eth_getTransactionByBlockHashAndIndex: answerBlockByHash,
  eth_getUncleCountByBlockHash: answerBlockByHash,
  eth_getTransactionByHash: answerTransaction,
  eth_getTransactionReceipt: answerTransaction,
  eth_getLogs: (call, node, behaviour) => answerGetLogs(call, node, behaviour.logsRangeCap),
};

/** Answers one JSON-RPC call as the simulated node (`lag` blocks behind) would: the logic HTTP and WebSocket share. */
export type CallAnswerer = (call: RpcCall, behaviour: SimBehaviour, lag: number) => Promise<CallAnswer>;

export function createCallAnswerer(upstream: Upstream): CallAnswerer {
  return (call, behaviour, lag) => {
    const chainIdAnswer = answerChainId(call, behaviour.chainId);
    if (chainIdAnswer !== undefined) return Promise.resolve(chainIdAnswer);
    const node = createNodeView(upstream, lag);
    if (isStateRead(call.method)) return answerStateRead(call, node, pruneRule(behaviour));
    const answer = byMethod[call.method] ?? ((c, n) => forward(n, c));
    return answer(call, node, behaviour);
  };
}

function answerChainId(call: RpcCall, chainId: number | undefined): CallAnswer | undefined {
  if (chainId === undefined) return undefined;
  if (call.method === 'eth_chainId') return resultReply(call, toQuantity(chainId));
  if (call.method === 'net_version') return resultReply(call, String(chainId));
  return undefined;
}

function pruneRule(behaviour: SimBehaviour) {
  const belowBlocks = behaviour.pruneBelowBlocks;
  return belowBlocks === undefined ? undefined : { belowBlocks, wording: behaviour.pruneWording };
}
