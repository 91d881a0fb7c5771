import { AppError } from '../core/errors.ts';
import {
  type CheckedCall,
  clip,
  type JsonRpcCall,
  type JsonRpcId,
  jsonRpcErrorCodes,
  maxBatchSize,
  type ParsedRpcBody,
  refusedCall,
} from '../jsonrpc/messages.ts';
import { isWellFormed, paramsProblem } from './params-shape.ts';

/**
 * The text without one leading byte order mark, which RFC 8259 lets a parser ignore (the REST routes
 * and the bundler URL ignore it, through Fastify's parser); a second mark is left to fail as not JSON.
 */
export function withoutByteOrderMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff && text.charCodeAt(1) !== 0xfeff ? text.slice(1) : text;
}

/**
 * Parses a JSON-RPC request body. A body that is not JSON-RPC at all (not JSON, not an object or an
 * array, an empty or oversized batch) is a 400 for the whole request; a malformed call is a JSON-RPC
 * error for that call only. JSON.parse is iterative in V8: any nesting parses without overflow.
 */
export function parseRpcBody(text: string): ParsedRpcBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Looked for only once a body failed to parse, so the usual path pays nothing.
    const unmarked = withoutByteOrderMark(text);
    if (unmarked !== text) return parseRpcBody(unmarked);
    // Only a body that failed to parse can be blank: the check costs nothing on the usual path.
    if (text.trim() === '')
      throw new AppError('invalid_request', "invalid parameter 'body': it is empty, expected a JSON-RPC request");
    throw new AppError('invalid_request', "invalid parameter 'body': not valid JSON");
  }
  if (Array.isArray(value)) {
    if (value.length === 0 || value.length > maxBatchSize) {
      throw new AppError(
        'invalid_request',
        `invalid parameter 'batch': a batch must hold 1 to ${maxBatchSize} calls, not ${value.length}`,
      );
    }
    return { batch: true, calls: value.map(checkCallShape) };
  }
  if (value !== null && typeof value === 'object') return { batch: false, call: checkCallShape(value) };
  throw new AppError('invalid_request', "invalid parameter 'body': must be a JSON-RPC request object or a batch array");
}

/**
 * A call is forwarded only in the exact shape of JSON-RPC 2.0: the members `jsonrpc` ("2.0"), `id`
 * (a string, a safe integer or null; absent for a notification), `method` (a string) and `params` (an
 * array or object), and no other. Another member, `METHOD` or `Params` above all, could be read by the
 * node in place of the one checked here (Go nodes match names case-insensitively, last one wins), so
 * the call is refused rather than forwarded; the proxy then forwards a call it rebuilds from these four
 * members only (`formatCall`), never the client's text. An id the client could not get back unchanged
 * (fractional, beyond 2^53, an object) is refused with id null, as nodes do.
 */
export function checkCallShape(value: unknown): CheckedCall {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return invalid(null, 'a call must be a JSON object');
  }
  const call = value as Record<string, unknown>;
  const id = call.id;
  if (id !== undefined && !isValidId(id)) return invalid(null, "'id' must be a string, an integer or null");
  // The node would refuse the whole request over it, answering id null with no reason.
  if (typeof id === 'string' && !isWellFormed(id)) {
    return invalid(null, "'id' must be valid Unicode text (it has an unpaired UTF-16 surrogate)");
  }
  for (const name in call) {
    if (name !== 'jsonrpc' && name !== 'id' && name !== 'method' && name !== 'params') {
      return invalid(id ?? null, `unexpected member '${clip(name)}': a call holds only jsonrpc, id, method and params`);
    }
  }
  if (call.jsonrpc !== '2.0') return invalid(id ?? null, `'jsonrpc' must be "2.0"`);
  if (typeof call.method !== 'string') return invalid(id ?? null, "'method' must be a string");
  const params = call.params;
  if (params !== undefined && params !== null) {
    if (typeof params !== 'object') return invalid(id ?? null, "'params' must be an array or an object");
    const problem = paramsProblem(params, call.method);
    if (problem !== undefined) {
      return refusedCall(call, { code: jsonRpcErrorCodes.invalid_params, message: problem });
    }
  }
  return { ok: true, call: value as JsonRpcCall };
}

/** A JSON-RPC id the client gets back unchanged: a string, a safe integer or null. */
export function isValidId(id: unknown): id is JsonRpcId {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}

function invalid(id: JsonRpcId, reason: string): CheckedCall {
  return { ok: false, id, error: { code: jsonRpcErrorCodes.invalid_request, message: `Invalid request: ${reason}` } };
}
