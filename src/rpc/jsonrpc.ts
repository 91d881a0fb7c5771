import { AppError } from '../core/errors.ts';

export type JsonRpcId = string | number | null;

/** A call as the client sent it. Malformed calls are forwarded too, so treat `method` as a lookup key only. */
export interface JsonRpcCall {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  method: string;
  params?: unknown;
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

export const maxBatchSize = 100;

/** One element of a request: a call to forward, or the error it earns without being forwarded. */
export type CheckedCall = { ok: true; call: JsonRpcCall } | { ok: false; id: JsonRpcId; error: JsonRpcErrorObject };

export type ParsedRpcBody = { batch: false; call: CheckedCall } | { batch: true; calls: CheckedCall[] };

/**
 * Parses a JSON-RPC request body. A body that is not JSON-RPC at all (not JSON, not an object or an
 * array, an empty or oversized batch) is a 400 for the whole request; a malformed call is a JSON-RPC
 * error for that call only.
 */
export function parseRpcBody(text: string): ParsedRpcBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Only a body that failed to parse can be blank: the check costs nothing on the usual path.
    if (text.trim() === '') throw new AppError('invalid_request', 'the body is empty: expected a JSON-RPC request');
    throw new AppError('invalid_request', 'the body is not valid JSON');
  }
  if (Array.isArray(value)) {
    if (value.length === 0)
      throw new AppError('invalid_request', `invalid parameter 'batch': a batch must hold 1 to ${maxBatchSize} calls, not 0`);
    if (value.length > maxBatchSize) {
      throw new AppError(
        'invalid_request',
        `invalid parameter 'batch': a batch must hold 1 to ${maxBatchSize} calls, not ${value.length}`,
      );
    }
    return { batch: true, calls: value.map(checkCall) };
  }
  if (value !== null && typeof value === 'object') return { batch: false, call: checkCall(value) };
  throw new AppError('invalid_request', 'the body must be a JSON-RPC request object or a batch array');
}

/**
 * A batch element that is not an object cannot be forwarded as a call: it gets the answer a node gives
 * (`-32600 Invalid request`, id null). Every object is forwarded, even a malformed one (no method,
 * wrong `jsonrpc`, bad `params` or id): the node judges it, so the answer is exactly the node's.
 * Policy (scopes, node-control methods, compute units) still applies by method name; a call without a
 * string method is charged the default and needs `rpc:read`.
 */
function checkCall(value: unknown): CheckedCall {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, id: null, error: { code: jsonRpcErrorCodes.invalid_request, message: 'Invalid request' } };
  }
  return { ok: true, call: value as JsonRpcCall };
}

/**
 * Whether a call is well formed JSON-RPC 2.0 with an id: only such calls may be answered from the
 * cache or merged with others (a malformed one must get the node's own error).
 */
export function isCacheableCall(call: JsonRpcCall): boolean {
  const { jsonrpc, id, method, params } = call as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  return (
    jsonrpc === '2.0' &&
    typeof method === 'string' &&
    method !== '' &&
    (id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) &&
    (params === undefined || (params !== null && typeof params === 'object'))
  );
}

/** A JSON-RPC error response, as JSON text. */
export function rpcErrorText(id: JsonRpcId | undefined, error: JsonRpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error });
}
