import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Answer } from './fuzz-target.ts';
import { nameableParts, type Operation } from './operations.ts';

/** The checkout's own folder and the temp folder (the service's data directory): wherever they are. */
const checkoutDir = fileURLToPath(new URL('../../../', import.meta.url));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What must never reach a client: stack frames, file paths, SQL and driver text. */
const leaks: [RegExp, string][] = [
  [new RegExp(escapeRegExp(checkoutDir)), 'a file path (the checkout)'],
  [new RegExp(escapeRegExp(`${tmpdir()}/`)), 'a file path (the temp folder)'],
  [/node_modules/, 'a file path (node_modules)'],
  [/\.[cm]?[jt]s:\d+/, 'a source position (.ts:line)'],
  [/\n\s+at \S/, 'a stack trace'],
  [/\bat (async )?[\w$.<>[\]]+ \((file:|node:|\/)/, 'a stack frame'],
  [/\b(select|insert into|delete from)\b[^"]{0,80}\b(from|values|where)\b/i, 'SQL text'],
  [/\bupdate\s+"?\w+"?\s+set\b/i, 'SQL text'],
  [
    /syntax error at or near|relation "[^"]+"|violates [\w -]+ constraint|invalid input syntax for|invalid byte sequence for encoding|unterminated quoted/i,
    'a database error',
  ],
  [/\bkysely\b|\bpg-protocol\b|ECONNREFUSED|ERR_[A-Z_]{4,}/, 'an internal error name'],
];

/** Words a 400 may use instead of a parameter's name: the parts of a request it can be about. */
const requestParts = /\b(body|JSON|URL|path|query|header|Content-Type|content type|parameter|charset)\b/i;

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isSpecError(body: unknown, status: number): boolean {
  const error = (body as { error?: { code?: unknown; message?: unknown; status?: unknown } } | undefined)?.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof error.code === 'string' &&
    typeof error.message === 'string' &&
    error.status === status
  );
}

export function isJsonRpcError(body: unknown): boolean {
  const check = (item: unknown) => {
    const value = item as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
    return value?.jsonrpc === '2.0' && Number.isInteger(value.error?.code) && typeof value.error?.message === 'string';
  };
  return Array.isArray(body)
    ? body.length > 0 && body.every((item) => check(item) || (item as { result?: unknown }).result !== undefined)
    : check(body);
}

/** The messages of an answer's errors, REST or JSON-RPC. */
function errorMessages(body: unknown): string[] {
  const items = Array.isArray(body) ? body : [body];
  return items
    .map((item) => (item as { error?: { message?: unknown } } | undefined)?.error?.message)
    .filter((m): m is string => typeof m === 'string');
}

/** Everything wrong with one answer of `operation`; empty when the invariants hold. */
export function problemsOf(operation: Operation, answer: Answer): string[] {
  const problems: string[] = [];
  const { status, text } = answer;
  if (status >= 500) problems.push(`answered ${status}`);
  for (const [pattern, what] of leaks) {
    const match = pattern.exec(text);
    if (match) problems.push(`leaks ${what}: …${text.slice(Math.max(0, match.index - 40), match.index + 60)}…`);
  }
  if (status < 400) return problems;
  const body = parse(text);
  const shaped = isSpecError(body, status) || (operation.jsonRpc && isJsonRpcError(body));
  if (!shaped)
    problems.push(`a ${status} without the error shape {error:{code,message,status=${status}}}: ${text.slice(0, 200)}`);
  if (status === 400 && shaped) {
    const names = nameableParts(operation);
    const unnamed = errorMessages(body).filter(
      (message) => !/'[^']+'/.test(message) && !requestParts.test(message) && ![...names].some((name) => message.includes(name)),
    );
    if (unnamed.length > 0) problems.push(`a 400 whose message names no parameter: ${unnamed[0]}`);
  }
  return problems;
}

export function changedCounts<T extends Record<string, number>>(before: T, after: T): string[] {
  return Object.keys(before)
    .filter((table) => before[table] !== after[table])
    .map((table) => `${table} ${before[table]} -> ${after[table]}`);
}
