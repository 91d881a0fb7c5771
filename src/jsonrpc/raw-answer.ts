/** The top-level `result` or `error` member of a JSON-RPC answer, as the exact text the upstream sent. */
export interface RawAnswer {
  readonly kind: 'result' | 'error';
  readonly raw: string;
}

/**
 * Finds the raw `result` or `error` of a single JSON-RPC answer without parsing it, so a cached answer
 * can be rebuilt byte for byte. `idJson` (the id as JSON text) allows an O(1) path for the usual
 * `{"jsonrpc":"2.0","id":…,"result":…}` layout; any other layout is scanned once.
 *
 * @example splitRpcAnswer('{"jsonrpc":"2.0","id":1,"result":"0x1"}', '1') // { kind: 'result', raw: '"0x1"' }
 */
export function splitRpcAnswer(text: string, idJson: string): RawAnswer | undefined {
  if (text.endsWith('}')) {
    const head = `{"jsonrpc":"2.0","id":${idJson},"`;
    if (text.startsWith(head)) {
      if (text.startsWith('result":', head.length)) return { kind: 'result', raw: text.slice(head.length + 8, -1) };
      if (text.startsWith('error":', head.length)) return { kind: 'error', raw: text.slice(head.length + 7, -1) };
    }
  }
  return scanMembers(text);
}

/** A JSON-RPC answer with `idJson` as its id, in the layout nodes use. */
export function formatRpcAnswer(idJson: string, answer: RawAnswer): string {
  return `{"jsonrpc":"2.0","id":${idJson},"${answer.kind}":${answer.raw}}`;
}

function scanMembers(text: string): RawAnswer | undefined {
  let found: RawAnswer | undefined;
  forEachMember(text, (key, raw) => {
    if (key !== 'result' && key !== 'error') return false;
    found = { kind: key, raw };
    return true;
  });
  return found;
}

/** The exact text of a top-level member of a JSON object, or `undefined` when absent or not an object. */
export function memberText(text: string, name: string): string | undefined {
  let found: string | undefined;
  forEachMember(text, (key, raw) => {
    if (key !== name) return false;
    found = raw;
    return true;
  });
  return found;
}

/** Calls `visit` with each top-level member's key and raw value text until it returns true. */
function forEachMember(text: string, visit: (key: string, raw: string) => boolean): void {
  let i = skipSpace(text, 0);
  if (text[i] !== '{') return;
  i++;
  while (i < text.length) {
    i = skipSpace(text, i);
    if (text[i] !== '"') return;
    const keyEnd = skipString(text, i);
    const key = text.slice(i + 1, keyEnd - 1);
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') return;
    const start = skipSpace(text, i + 1);
    const end = skipValue(text, start);
    if (end <= start) return;
    if (visit(key, text.slice(start, end))) return;
    i = skipSpace(text, end);
    if (text[i] !== ',') return;
    i++;
  }
}

export function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

/** `i` is at an opening quote; returns the index after the closing one. */
function skipString(text: string, i: number): number {
  let at = i + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    let slashes = 0;
    while (text[quote - 1 - slashes] === '\\') slashes++;
    if (slashes % 2 === 0) return quote + 1;
    at = quote + 1;
  }
}

/** `i` is at the start of a JSON value; returns the index after its end. */
export function skipValue(text: string, i: number): number {
  const first = text[i];
  if (first === '"') return skipString(text, i);
  if (first === '{' || first === '[') {
    let depth = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') {
        i = skipString(text, i);
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') depth--;
      i++;
      if (depth === 0) return i;
    }
    return text.length;
  }
  while (i < text.length && !',}] \n\r\t'.includes(text[i]!)) i++;
  return i;
}
