import { readNeedOf } from '../chains/read-need.ts';
import type { UpstreamPool } from '../chains/upstream-pool.ts';
import { UpstreamRpcError } from '../chains/upstream-socket.ts';

/**
 * One JSON-RPC read through a network's pool, routed to a verified node that has the block: the feed's
 * fallback when its connection lacks a block another node announced. Rejects on an error answer.
 */
export function readThroughPool(pool: UpstreamPool): (method: string, params: unknown[]) => Promise<unknown> {
  return async (method, params) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const answer = JSON.parse(await pool.send(body, readNeedOf(method, params))) as {
      result?: unknown;
      error?: { code: number; message: string };
    };
    if (answer.error) throw new UpstreamRpcError(answer.error);
    return answer.result;
  };
}
