import type { RpcCall, RpcReply } from './json-rpc.ts';

const upstreamTimeoutMs = 10_000;

/** The real node behind the simulator (an anvil), over HTTP. */
export interface Upstream {
  /** The call as it is (its id included); anvil's reply, or a -32603 error if anvil cannot be reached. */
  forward(call: RpcCall): Promise<RpcReply>;
  /** A look-up of the simulator's own: the result, or a thrown error. */
  result<T>(method: string, params: unknown[]): Promise<T>;
  headNumber(): Promise<number>;
  /** The number of the block with this hash, or undefined when anvil does not know it. */
  blockNumberOfHash(hash: string): Promise<number | undefined>;
}

export function createUpstream(url: string): Upstream {
  const post = async (call: RpcCall): Promise<RpcReply> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...call, jsonrpc: '2.0' }),
      signal: AbortSignal.timeout(upstreamTimeoutMs),
    });
    return (await response.json()) as RpcReply;
  };
  const result = async <T>(method: string, params: unknown[]): Promise<T> => {
    const reply = await post({ id: 1, method, params });
    if ('error' in reply) throw new Error(`${method}: ${reply.error.message}`);
    return reply.result as T;
  };
  return {
    forward: (call) =>
      post(call).catch((error: unknown) => ({
        jsonrpc: '2.0' as const,
        id: call.id ?? null,
        error: { code: -32603, message: `provider simulator: upstream unreachable (${String(error)})` },
      })),
    result,
    headNumber: async () => Number(await result<string>('eth_blockNumber', [])),
    blockNumberOfHash: async (hash) => {
      const block = await result<{ number: string } | null>('eth_getBlockByHash', [hash, false]);
      return block === null ? undefined : Number(block.number);
    },
  };
}
