import { AppError } from '../core/errors.ts';

export type JsonRpcId = string | number | null;

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
  if (text.trim() === '') throw new AppError('invalid_request', 'the body is empty: expected a JSON-RPC request');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
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

function checkCall(value: unknown): CheckedCall {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return invalid(null, 'invalid request: each call must be a JSON object');
  }
  const call = value as Record<string, unknown>;
  const id = isValidId(call.id) ? call.id : null;
  if (call.id !== undefined && !isValidId(call.id))
    return invalid(null, "invalid request: 'id' must be a string, a number or null");
  if (call.jsonrpc !== '2.0') return invalid(id, 'invalid request: \'jsonrpc\' must be "2.0"');
  if (call.method === undefined) return invalid(id, "invalid request: missing 'method'");
  if (typeof call.method !== 'string' || call.method === '')
    return invalid(id, "invalid request: 'method' must be a non-empty string");
  if (call.params !== undefined && (call.params === null || typeof call.params !== 'object')) {
    return {
      ok: false,
      id,
      error: { code: jsonRpcErrorCodes.invalid_params, message: "invalid params: 'params' must be an array or an object" },
    };
  }
  return { ok: true, call: call as unknown as JsonRpcCall };
}

function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

function invalid(id: JsonRpcId, message: string): CheckedCall {
  return { ok: false, id, error: { code: jsonRpcErrorCodes.invalid_request, message } };
}

/** A JSON-RPC error response, as JSON text. */
export function rpcErrorText(id: JsonRpcId | undefined, error: JsonRpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error });
}
