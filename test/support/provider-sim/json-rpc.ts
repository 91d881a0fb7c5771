export type RpcId = string | number | null;

export interface RpcCall {
  jsonrpc?: string;
  id?: RpcId;
  method: string;
  params?: unknown[];
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcReply = { jsonrpc: '2.0'; id: RpcId; result: unknown } | { jsonrpc: '2.0'; id: RpcId; error: RpcErrorObject };

/** One call's reply, and the HTTP status a provider sends when the call came alone (QuickNode's 413). */
export interface CallAnswer {
  reply: RpcReply;
  httpStatus?: number;
}

export function resultReply(call: RpcCall, result: unknown): CallAnswer {
  return { reply: { jsonrpc: '2.0', id: call.id ?? null, result } };
}

export function errorReply(call: RpcCall, error: RpcErrorObject, httpStatus?: number): CallAnswer {
  return { reply: { jsonrpc: '2.0', id: call.id ?? null, error }, ...(httpStatus === undefined ? {} : { httpStatus }) };
}

export function toQuantity(value: number): string {
  return `0x${value.toString(16)}`;
}

export function isQuantity(value: unknown): value is string {
  return typeof value === 'string' && /^0x[0-9a-fA-F]+$/.test(value) && value.length <= 18;
}

export function isHash(value: unknown): value is string {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value);
}

/** The parsed request: its calls, and whether they came as a batch (the answer is then an array). */
export type ParsedRequest = { ok: true; calls: RpcCall[]; batch: boolean } | { ok: false; reply: RpcReply };

export function parseRequest(text: string): ParsedRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reply: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } } };
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return invalid('empty batch');
    if (!parsed.every(isCall)) return invalid('invalid request');
    return { ok: true, calls: parsed, batch: true };
  }
  return isCall(parsed) ? { ok: true, calls: [parsed], batch: false } : invalid('invalid request');
}

function invalid(message: string): ParsedRequest {
  return { ok: false, reply: { jsonrpc: '2.0', id: null, error: { code: -32600, message } } };
}

function isCall(value: unknown): value is RpcCall {
  if (typeof value !== 'object' || value === null) return false;
  const call = value as Record<string, unknown>;
  return typeof call.method === 'string' && (call.params === undefined || Array.isArray(call.params));
}
