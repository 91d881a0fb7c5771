import { invalidRequest } from '../core/errors.ts';

/**
 * Readers of JSON-RPC params for the enhanced methods. Each refusal is an `invalid_request` AppError
 * naming the parameter (`invalid parameter 'category': …`), answered as -32602 with that message.
 */

const addressPattern = /^0x[0-9a-fA-F]{40}$/;
const quantityPattern = /^0x[0-9a-fA-F]{1,16}$/;

/** Short and printable: a refusal quotes what it got without echoing a megabyte back. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return `'${text.length > 66 ? `${text.slice(0, 66)}…` : text}'`;
}

/** The positional params, between `min` and `max` of them. */
export function positionalParams(params: unknown, min: number, max: number): unknown[] {
  const list = params === undefined || params === null ? [] : params;
  if (!Array.isArray(list)) throw invalidRequest('params', 'must be an array');
  if (list.length < min || list.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    throw invalidRequest('params', `expected ${expected} params, got ${list.length}`);
  }
  return list;
}

/** A JSON object with only the named members (a misspelt member would otherwise widen the query silently). */
export function paramsObject(name: string, value: unknown, members: readonly string[]): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidRequest(name, 'must be an object');
  for (const key of Object.keys(value)) {
    if (!members.includes(key)) throw invalidRequest(key, `is not a member of ${name} (expected any of ${members.join(', ')})`);
  }
  return value as Record<string, unknown>;
}

/** A 20-byte address in any case, lower-cased (Alchemy takes checksummed and plain addresses alike). */
export function parseAddress(name: string, value: unknown): string {
  if (typeof value !== 'string' || !addressPattern.test(value)) {
    throw invalidRequest(name, `${quote(value)} is not a 0x-prefixed address of 40 hex digits`);
  }
  return value.toLowerCase();
}

/** A list of addresses, 1 to `max` of them. */
export function parseAddressList(name: string, value: unknown, max: number): string[] {
  if (!Array.isArray(value)) throw invalidRequest(name, 'must be an array of addresses');
  if (value.length > max) throw invalidRequest(name, `holds ${value.length} addresses, at most ${max} are accepted`);
  return [...new Set(value.map((item, i) => parseAddress(`${name}[${i}]`, item)))];
}

/** A non-negative integer as a hex quantity (`0x3e8`) or a JSON number, within `max`. */
export function parseQuantity(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  let number: number | undefined;
  if (typeof value === 'string' && quantityPattern.test(value)) number = Number(BigInt(value));
  else if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) number = value;
  if (number === undefined) throw invalidRequest(name, `${quote(value)} is not a hex quantity (0x…) or a whole number`);
  if (number > max) throw invalidRequest(name, `${quote(value)} is above the most accepted, ${max} (0x${max.toString(16)})`);
  return number;
}

export function parseBoolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalidRequest(name, `${quote(value)} is not true or false`);
  return value;
}

/** One of the listed strings; `fallback` when absent. */
export function parseChoice<T extends string>(name: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    throw invalidRequest(name, `${quote(value)} is not one of ${choices.join(', ')}`);
  }
  return value as T;
}
