export type JsonRpcId = string | number | null;

/** A well-formed call (src/rpc/parse-call.ts checked its shape): these four members and no other. */
export interface JsonRpcCall {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  method: string;
  params?: object | null;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * JSON-RPC error codes Blockyard itself answers with (errors from the chain pass through unchanged).
 * Each is listed in docs/errors.md.
 */
export const jsonRpcErrorCodes = {
  parse_error: -32700,
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  internal_error: -32603,
  limit_exceeded: -32005,
  scope_missing: -32010,
} as const;

/**
 * Calls in one JSON-RPC batch: Alchemy's documented limit over HTTP, and the size viem's batching
 * transport sends by default (`batchSize: 1000`), so a client batching many reads is not refused here
 * after working there. What a batch costs is still bounded by the plan's compute units per second.
 */
export const maxBatchSize = 1000;

/**
 * One element of a request: a call to forward, or the error it earns without being forwarded.
 * `notification`: a well-formed call without an id, refused (an unknown method, bad params, a missing
 * scope in a batch): JSON-RPC 2.0 has the server send no answer to a notification, an error included.
 */
export type CheckedCall =
  | { ok: true; call: JsonRpcCall }
  | { ok: false; id: JsonRpcId; error: JsonRpcErrorObject; notification?: true };

/** The refusal of a well-formed `call`: silent (no answer) when the call is a notification. */
export function refusedCall(call: { id?: JsonRpcId }, error: JsonRpcErrorObject): CheckedCall {
  return call.id === undefined ? { ok: false, id: null, error, notification: true } : { ok: false, id: call.id, error };
}

export type ParsedRpcBody = { batch: false; call: CheckedCall } | { batch: true; calls: CheckedCall[] };

/**
 * Whether a call may be answered from the cache or merged with others: calls that passed
 * `checkCallShape` are well formed, so only notifications (no id, no answer) are left out.
 */
export function isCacheableCall(call: JsonRpcCall): boolean {
  return call.id !== undefined;
}

/**
 * The text forwarded upstream for a call: rebuilt from its four members, never the client's own text,
 * so the node cannot read anything the proxy did not check (see parse-call.ts).
 */
export function formatCall(call: JsonRpcCall, paramsJson = paramsJsonOf(call)): string {
  const id = call.id === undefined ? '' : `"id":${JSON.stringify(call.id)},`;
  const params = paramsJson === undefined ? '' : `,"params":${paramsJson}`;
  return `{"jsonrpc":"2.0",${id}"method":${JSON.stringify(call.method)}${params}}`;
}

/** A call's params as JSON text (undefined when absent): computed once per call, for its body and its cache key. */
export function paramsJsonOf(call: JsonRpcCall): string | undefined {
  return call.params === undefined ? undefined : JSON.stringify(call.params);
}

/** A JSON-RPC error response, as JSON text. */
export function rpcErrorText(id: JsonRpcId | undefined, error: JsonRpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error });
}

/** Member names come from the client: a message quotes at most 64 characters of one. */
export function clip(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}…` : name;
}
