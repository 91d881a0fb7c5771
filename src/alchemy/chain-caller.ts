import type { JsonRpcErrorObject } from '../jsonrpc/messages.ts';

/**
 * Sends one chain call (eth_*) the way the proxy forwards it (cache, upstream pool, metrics) and
 * returns its result; a JSON-RPC error answered by the node or the proxy is thrown as `ChainRpcError`.
 */
export type ChainCaller = (method: string, params: readonly unknown[]) => Promise<unknown>;

/** The node's (or the proxy's) JSON-RPC error for a chain call, passed on to the client unchanged. */
export class ChainRpcError extends Error {
  readonly error: JsonRpcErrorObject;

  constructor(error: JsonRpcErrorObject) {
    super(error.message);
    this.name = 'ChainRpcError';
    this.error = error;
  }
}

/** Parses a forwarded call's answer (JSON text): its result, or its error thrown. */
export function resultOf(answer: string): unknown {
  const parsed = JSON.parse(answer) as { result?: unknown; error?: JsonRpcErrorObject };
  if (parsed.error !== undefined) throw new ChainRpcError(parsed.error);
  return parsed.result ?? null;
}
