// How bench/data-queries.ts sends a query and reads its answer: one HTTP request, bounded in time,
// timed until the whole body has arrived, and classed as accepted (200 with a result), refused (400,
// 413 or 429; JSON-RPC -32602, -32600 or -32005: the API said no, naming why), unserved (no such route
// or method) or failed (anything else: a timeout, a 5xx, a chain error).

export type HttpRequest =
  | { method: 'GET'; url: string; headers: Record<string, string> }
  | { method: 'POST'; url: string; headers: Record<string, string>; body: unknown };

export type Outcome = 'accepted' | 'refused' | 'unserved' | 'failed';

export interface Answer {
  ms: number;
  outcome: Outcome;
  /** What came back, e.g. `200`, `429`, `rpc -32602`, `batch 50 ok`, `batch with -32005`, `timeout`. */
  label: string;
  /** The error's message, when there was one. */
  message?: string;
  /** Items in the answer's list (transfers, tokens, NFTs, owners); for a batch, of all its results. */
  items?: number;
  /** The parsed answer (JSON-RPC: the result), for a caller that follows its page key. */
  body?: unknown;
}

const refusedStatuses = new Set([400, 413, 429]);
const unservedStatuses = new Set([404, 405]);
const refusedRpcCodes = new Set([-32602, -32600, -32005]);

/** A GET with the key in the x-api-key header (none for the baseline). */
export function getRequest(url: string, key?: string): HttpRequest {
  return { method: 'GET', url, headers: key ? { 'x-api-key': key } : {} };
}

/** A JSON-RPC call, or a batch of them, POSTed with the key in the x-api-key header. */
export function rpcRequest(url: string, key: string, calls: RpcCall[] | RpcCall): HttpRequest {
  const body = Array.isArray(calls)
    ? calls.map((call, id) => ({ jsonrpc: '2.0', id, ...call }))
    : { jsonrpc: '2.0', id: 1, ...calls };
  return { method: 'POST', url, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body };
}

type RpcCall = { method: string; params: unknown[] };

/** Sends the request and classes its answer; never throws (a timeout or a broken connection is a failed answer). */
export async function send(request: HttpRequest, timeoutMs: number, signal?: AbortSignal): Promise<Answer> {
  const started = performance.now();
  const abort = signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
  let status: number;
  let text: string;
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.method === 'POST' ? { body: JSON.stringify(request.body) } : {}),
      signal: abort,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    const ms = performance.now() - started;
    const name = (error as Error).name;
    if (name === 'TimeoutError') return { ms, outcome: 'failed', label: 'timeout', message: `no answer within ${timeoutMs} ms` };
    if (name === 'AbortError') return { ms, outcome: 'failed', label: 'aborted' };
    return { ms, outcome: 'failed', label: 'network error', message: String((error as Error).message).slice(0, 160) };
  }
  return { ms: performance.now() - started, ...classify(status, text) };
}

function classify(status: number, text: string): Omit<Answer, 'ms'> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { outcome: 'failed', label: `${status} not JSON`, message: text.slice(0, 160) };
  }
  if (status !== 200) {
    const outcome: Outcome = refusedStatuses.has(status) ? 'refused' : unservedStatuses.has(status) ? 'unserved' : 'failed';
    return { outcome, label: String(status), message: restMessage(body) };
  }
  if (Array.isArray(body)) return classifyBatch(body as RpcAnswer[]);
  const rpc = body as RpcAnswer;
  if (rpc.jsonrpc !== '2.0') return { outcome: 'accepted', label: '200', items: itemsOf(body), body };
  if (rpc.error) return { ...rpcOutcome([rpc.error.code]), label: `rpc ${rpc.error.code}`, message: rpc.error.message };
  return { outcome: 'accepted', label: '200', items: itemsOf(rpc.result), body: rpc.result };
}

interface RpcAnswer {
  jsonrpc?: string;
  result?: unknown;
  error?: { code: number; message?: string };
}

function classifyBatch(answers: RpcAnswer[]): Omit<Answer, 'ms'> {
  const errors = answers.flatMap((answer) => (answer.error ? [answer.error] : []));
  const items = answers.reduce((sum, answer) => sum + (answer.error ? 0 : (itemsOf(answer.result) ?? 0)), 0);
  if (errors.length === 0) return { outcome: 'accepted', label: `batch ${answers.length} ok`, items };
  const codes = new Map<number, number>();
  for (const error of errors) codes.set(error.code, (codes.get(error.code) ?? 0) + 1);
  // The label names the codes only (a tally by label stays short); the message has this answer's counts.
  const label = `batch with ${[...codes.keys()].sort().join(', ')}`;
  const counts = [...codes].map(([code, n]) => `${n}x ${code}`).join(', ');
  const message = `e.g. ${answers.length - errors.length} of ${answers.length} ok, ${counts}: ${errors[0]!.message}`;
  return { ...rpcOutcome([...codes.keys()]), label, message, items };
}

function rpcOutcome(codes: number[]): { outcome: Outcome } {
  if (codes.every((code) => refusedRpcCodes.has(code))) return { outcome: 'refused' };
  return { outcome: codes.includes(-32601) ? 'unserved' : 'failed' };
}

function restMessage(body: unknown): string | undefined {
  const error = (body as { error?: { message?: unknown } } | null)?.error;
  return typeof error?.message === 'string' ? error.message.slice(0, 200) : undefined;
}

/** The length of the answer's first list (transfers, tokenBalances, ownedNfts, owners, ...). */
function itemsOf(value: unknown): number | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  for (const field of Object.values(value)) if (Array.isArray(field)) return field.length;
  return undefined;
}
