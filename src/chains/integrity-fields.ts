/**
 * Why an upstream's answer was refused before it entered the index or the cache. `detail` names the
 * field and the values involved, never the whole answer.
 */
export interface IntegrityProblem {
  code: 'wrong_block' | 'wrong_hash' | 'broken_link' | 'receipt_mismatch' | 'log_mismatch' | 'log_index_gap' | 'malformed';
  detail: string;
}

export type JsonRecord = Record<string, unknown>;

export function problem(code: IntegrityProblem['code'], detail: string): IntegrityProblem {
  return { code, detail };
}

export function isProblem(value: unknown): value is IntegrityProblem {
  return typeof value === 'object' && value !== null && 'code' in value && 'detail' in value;
}

export function asRecord(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

const hash32 = /^0x[0-9a-fA-F]{64}$/;
// Block numbers, indexes and log positions stay far below 2^53.
const quantity = /^0x[0-9a-fA-F]{1,13}$/;

/** A `0x` + 64 hex digits hash, lower-cased (nodes send lower case; a comparison must not depend on it). */
export function parseHash(value: unknown): string | undefined {
  return typeof value === 'string' && hash32.test(value) ? value.toLowerCase() : undefined;
}

/** A hex quantity as a number (leading zeros tolerated), or undefined. */
export function parseQuantity(value: unknown): number | undefined {
  return typeof value === 'string' && quantity.test(value) ? Number.parseInt(value.slice(2), 16) : undefined;
}

/** A value for a detail line: short, whatever the upstream sent. */
export function show(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
  return text.length > 70 ? `${text.slice(0, 67)}...` : text;
}

export function requiredHash(record: JsonRecord, field: string, where: string): string | IntegrityProblem {
  return parseHash(record[field]) ?? problem('malformed', `${where}.${field} is ${show(record[field])}, not a 32-byte hash`);
}

export function requiredQuantity(record: JsonRecord, field: string, where: string): number | IntegrityProblem {
  return parseQuantity(record[field]) ?? problem('malformed', `${where}.${field} is ${show(record[field])}, not a hex quantity`);
}

/** A field the spec leaves optional: absent (or null) is fine, present must be well formed. */
export function optionalHash(record: JsonRecord, field: string, where: string): string | undefined | IntegrityProblem {
  return record[field] === undefined || record[field] === null ? undefined : requiredHash(record, field, where);
}

export function optionalQuantity(record: JsonRecord, field: string, where: string): number | undefined | IntegrityProblem {
  return record[field] === undefined || record[field] === null ? undefined : requiredQuantity(record, field, where);
}

/** `actual` against `expected` when there is an expectation; numbers are shown in hex, as the nodes send them. */
export function differs(
  code: IntegrityProblem['code'],
  what: string,
  actual: string | number | undefined,
  expected: string | number | undefined,
): IntegrityProblem | undefined {
  if (expected === undefined || actual === undefined || actual === expected) return undefined;
  return problem(code, `${what} is ${shown(actual)}, expected ${shown(expected)}`);
}

const shown = (value: string | number) => (typeof value === 'number' ? `0x${value.toString(16)}` : show(value));
