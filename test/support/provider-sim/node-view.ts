import { type CallAnswer, isHash, type RpcCall } from './json-rpc.ts';
import type { Upstream } from './upstream.ts';

/** The node one call is answered as: the real anvil seen from `lag` blocks behind its head. */
export interface NodeView {
  readonly upstream: Upstream;
  /** Blocks behind the real head; 0 = an honest, synced node. */
  readonly lag: number;
  /** This node's head: the real head minus the lag, never below 0 (asked of anvil at most once per call). */
  head(): Promise<number>;
}

export function createNodeView(upstream: Upstream, lag: number): NodeView {
  let head: Promise<number> | undefined;
  return {
    upstream,
    lag,
    head: () => {
      head ??= upstream.headNumber().then((real) => Math.max(0, real - lag));
      return head;
    },
  };
}

export async function forward(node: NodeView, call: RpcCall): Promise<CallAnswer> {
  return { reply: await node.upstream.forward(call) };
}

/** Whether the block with this hash is above the node's head (a block it has not imported yet). */
export async function isHashAboveHead(node: NodeView, hash: unknown): Promise<boolean> {
  if (!isHash(hash)) return false;
  const [number, head] = await Promise.all([node.upstream.blockNumberOfHash(hash), node.head()]);
  return number !== undefined && number > head;
}
