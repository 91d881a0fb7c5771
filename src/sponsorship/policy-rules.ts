import { parseAbiItem, toFunctionSelector } from 'viem';
import { invalidRequest } from '../core/errors.ts';
import { assertAddressChecksum } from '../http/address-param.ts';

/** The signature's validUntil when a policy does not set `sponsorship_expiry_s`: ten minutes to send the op. */
export const defaultSponsorshipExpiryS = 600;
export const minSponsorshipExpiryS = 60;
export const maxSponsorshipExpiryS = 86_400;
/** Entries per address or method list at most (as many as a webhook filter takes). */
export const maxRuleListEntries = 10_000;
/** A rate window longer than 30 days is what `max_ops` and `max_ops_per_sender` are for. */
export const maxRateLimitWindowS = 30 * 86_400;

/** An allowed method: the selector the op's call is checked against, and the text it was given as. */
export interface AllowedMethod {
  /** Lower-case `0x` + 8 hex digits. */
  readonly selector: string;
  /** As given: a selector (lower-cased) or a function signature such as `transfer(address,uint256)`. */
  readonly method: string;
}

export interface RateLimitRule {
  readonly ops: number;
  readonly per_seconds: number;
}

/**
 * A policy's rules after validation. Every rule but `sponsorship_expiry_s` (defaulted) is optional:
 * an absent rule does not limit. USD amounts are decimal strings > 0, addresses lower-case, times
 * ISO 8601 in UTC.
 */
export interface PolicyRules {
  /** USD the policy sponsors in total. */
  readonly max_gas_usd?: string;
  readonly max_gas_usd_per_op?: string;
  readonly max_gas_usd_per_sender?: string;
  readonly max_ops?: number;
  readonly max_ops_per_sender?: number;
  /** Ops per sender per UTC day. */
  readonly max_per_user_per_day?: number;
  readonly allowed_contracts?: readonly string[];
  readonly allowed_methods?: readonly AllowedMethod[];
  readonly allowed_senders?: readonly string[];
  /** Refused even when also in `allowed_senders`. */
  readonly blocked_senders?: readonly string[];
  /** The factories an op may deploy its sender with (v0.7/v0.8 `factory`, v0.6 `initCode`'s first 20 bytes). */
  readonly allowed_factories?: readonly string[];
  readonly start_time?: string;
  readonly end_time?: string;
  readonly rate_limit?: RateLimitRule;
  /** Seconds a sponsorship stays valid (the paymaster signature's validUntil), 60..86400. */
  readonly sponsorship_expiry_s: number;
}

/** Every rule, in the order the API shows them. */
export const policyRuleNames = [
  'max_gas_usd',
  'max_gas_usd_per_op',
  'max_gas_usd_per_sender',
  'max_ops',
  'max_ops_per_sender',
  'max_per_user_per_day',
  'allowed_contracts',
  'allowed_methods',
  'allowed_senders',
  'blocked_senders',
  'allowed_factories',
  'start_time',
  'end_time',
  'rate_limit',
  'sponsorship_expiry_s',
] as const satisfies readonly (keyof PolicyRules)[];

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Validates a policy's rules and returns them normalised; an unknown rule or a bad value throws a
 * 400 naming its path (`rules.allowed_contracts[2]`). `null` counts as absent.
 * @example parsePolicyRules({ max_gas_usd: '50', allowed_methods: ['transfer(address,uint256)'] })
 */
export function parsePolicyRules(input: unknown, path = 'rules'): PolicyRules {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw invalidRequest(path, 'must be an object');
  const rules: Mutable<PolicyRules> = { sponsorship_expiry_s: defaultSponsorshipExpiryS };
  for (const [key, value] of Object.entries(input)) {
    const at = `${path}.${key}`;
    if (!(policyRuleNames as readonly string[]).includes(key)) {
      throw invalidRequest(at, `is not a known rule; the rules are ${policyRuleNames.join(', ')}`);
    }
    if (value === null || value === undefined) continue;
    switch (key) {
      case 'max_gas_usd':
      case 'max_gas_usd_per_op':
      case 'max_gas_usd_per_sender':
        rules[key] = usdAmount(value, at);
        break;
      case 'max_ops':
      case 'max_ops_per_sender':
      case 'max_per_user_per_day':
        rules[key] = positiveInteger(value, at);
        break;
      case 'allowed_contracts':
      case 'allowed_senders':
      case 'allowed_factories':
        rules[key] = addressList(value, at, { allowEmpty: false });
        break;
      case 'blocked_senders':
        rules[key] = addressList(value, at, { allowEmpty: true });
        break;
      case 'allowed_methods':
        rules[key] = methodList(value, at);
        break;
      case 'start_time':
      case 'end_time':
        rules[key] = timestamp(value, at);
        break;
      case 'rate_limit':
        rules[key] = rateLimit(value, at);
        break;
      case 'sponsorship_expiry_s':
        rules[key] = integerBetween(value, at, minSponsorshipExpiryS, maxSponsorshipExpiryS);
        break;
    }
  }
  if (rules.start_time && rules.end_time && Date.parse(rules.end_time) <= Date.parse(rules.start_time)) {
    throw invalidRequest(`${path}.end_time`, `must be after ${path}.start_time (${rules.start_time})`);
  }
  return rules;
}

/** The rules as the API shows them: as `parsePolicyRules` takes them (allowed methods as their text). */
export function formatPolicyRules(rules: PolicyRules): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const name of policyRuleNames) {
    const value = rules[name];
    if (value === undefined) continue;
    shown[name] = name === 'allowed_methods' ? (value as readonly AllowedMethod[]).map((entry) => entry.method) : value;
  }
  return shown;
}

/**
 * The lower-case 4-byte selector of a method given as a selector or a function signature; throws a
 * 400 when it is neither.
 * @example selectorOf('transfer(address,uint256)') // '0xa9059cbb'
 */
export function selectorOf(method: string): string {
  const selector = trySelectorOf(method);
  if (!selector) throw invalidRequest('method', methodProblem);
  return selector;
}

const methodProblem = 'must be a 4-byte selector such as 0xa9059cbb or a function signature such as transfer(address,uint256)';
const selectorPattern = /^0x[0-9a-fA-F]{8}$/;

function trySelectorOf(method: string): string | undefined {
  const text = method.trim();
  if (selectorPattern.test(text)) return text.toLowerCase();
  if (!text.includes('(')) return undefined;
  try {
    // abitype checks every type and writes `uint` as `uint256`; viem's selector helper alone would hash
    // a misspelt signature without complaint.
    const item = parseAbiItem(text.startsWith('function ') ? text : `function ${text}`);
    return item.type === 'function' ? toFunctionSelector(item) : undefined;
  } catch {
    return undefined;
  }
}

const usdPattern = /^([0-9]{1,15})(\.[0-9]{1,18})?$/;

function usdAmount(value: unknown, path: string): string {
  const problem = 'must be a USD amount greater than 0, as a decimal string such as "25.50"';
  if (typeof value !== 'string') throw invalidRequest(path, problem);
  const match = usdPattern.exec(value);
  if (!match || !/[1-9]/.test(value)) throw invalidRequest(path, problem);
  const whole = match[1]!.replace(/^0+(?=[0-9])/, '');
  return `${whole}${match[2] ?? ''}`;
}

/** Counts go up to a billion, as every limit the API takes (account and key limits): past it, leave the rule out. */
const maxCount = 1_000_000_000;

function positiveInteger(value: unknown, path: string): number {
  if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > maxCount) {
    throw invalidRequest(path, `must be a positive integer up to ${maxCount}`);
  }
  return value as number;
}

function integerBetween(value: unknown, path: string, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
    throw invalidRequest(path, `must be an integer from ${min} to ${max}`);
  }
  return value as number;
}

function list(value: unknown, path: string, allowEmpty: boolean, what: string): unknown[] {
  // A single string is read as a list of one, as in webhook filters.
  if (typeof value === 'string') value = [value];
  if (!Array.isArray(value)) throw invalidRequest(path, `must be a list of ${what}`);
  if (value.length === 0 && !allowEmpty) throw invalidRequest(path, `must not be empty (leave the rule out to allow any)`);
  if (value.length > maxRuleListEntries) {
    throw invalidRequest(path, `has ${value.length} entries; at most ${maxRuleListEntries}`);
  }
  return value;
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

function addressList(value: unknown, path: string, options: { allowEmpty: boolean }): string[] {
  const addresses = list(value, path, options.allowEmpty, '0x addresses').map((item, index) => {
    const at = `${path}[${index}]`;
    if (typeof item !== 'string' || !addressPattern.test(item)) throw invalidRequest(at, 'must be a 0x address of 40 hex digits');
    assertAddressChecksum(at, item);
    return item.toLowerCase();
  });
  return [...new Set(addresses)];
}

function methodList(value: unknown, path: string): AllowedMethod[] {
  const bySelector = new Map<string, AllowedMethod>();
  list(value, path, false, 'selectors or function signatures').forEach((item, index) => {
    const selector = typeof item === 'string' ? trySelectorOf(item) : undefined;
    if (!selector) throw invalidRequest(`${path}[${index}]`, methodProblem);
    const text = (item as string).trim();
    if (!bySelector.has(selector)) bySelector.set(selector, { selector, method: selectorPattern.test(text) ? selector : text });
  });
  return [...bySelector.values()];
}

/** Up to the last second of year 9999; larger is almost always milliseconds. */
const maxUnixSeconds = 253_402_300_799;
const isoPattern = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

function timestamp(value: unknown, path: string): string {
  if (typeof value === 'number' || (typeof value === 'string' && /^[0-9]+$/.test(value))) {
    const seconds = Number(value);
    if (!Number.isSafeInteger(seconds) || seconds < 0) throw invalidRequest(path, 'must be whole Unix seconds, not negative');
    if (seconds > maxUnixSeconds)
      throw invalidRequest(path, `must be Unix seconds up to ${maxUnixSeconds} (is it in milliseconds?)`);
    return new Date(seconds * 1000).toISOString();
  }
  const problem = 'must be an ISO 8601 time with a time zone (2026-12-01T00:00:00Z) or Unix seconds';
  const match = typeof value === 'string' ? isoPattern.exec(value) : null;
  if (!match) throw invalidRequest(path, problem);
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  // Date.parse rolls 2026-02-30 over into March; a calendar date must exist as written.
  const calendar = new Date(Date.UTC(year!, month! - 1, day!));
  const exists = calendar.getUTCMonth() === month! - 1 && calendar.getUTCDate() === day;
  const time = Date.parse(value as string);
  if (!exists || hour! > 23 || minute! > 59 || second! > 59 || Number.isNaN(time)) throw invalidRequest(path, problem);
  return new Date(time).toISOString();
}

function rateLimit(value: unknown, path: string): RateLimitRule {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest(path, 'must be an object {ops, per_seconds}');
  }
  for (const key of Object.keys(value)) {
    if (key !== 'ops' && key !== 'per_seconds')
      throw invalidRequest(`${path}.${key}`, 'is not a field of rate_limit (ops, per_seconds)');
  }
  const { ops, per_seconds } = value as Record<string, unknown>;
  if (ops === undefined || ops === null) throw invalidRequest(`${path}.ops`, 'is required');
  if (per_seconds === undefined || per_seconds === null) throw invalidRequest(`${path}.per_seconds`, 'is required');
  return {
    ops: positiveInteger(ops, `${path}.ops`),
    per_seconds: integerBetween(per_seconds, `${path}.per_seconds`, 1, maxRateLimitWindowS),
  };
}
