// A key's audit events (api_key_events) in words: what was done, by whom, and what changed.
import { scopes } from '../../../src/auth/scopes.ts';
import type { KeyEventAction } from '../api/types.ts';
import { formatDate } from '../ui/format.ts';

export const actionLabels: Record<KeyEventAction, string> = {
  create: 'Created',
  restrict: 'Changed',
  rotate: 'Rotated',
  revoke: 'Revoked',
};

export const actionTones: Record<KeyEventAction, string> = {
  create: 'good',
  restrict: 'info',
  rotate: 'warn',
  revoke: 'bad',
};

/**
 * Who: `admin` is the operator's admin token, `cli` the command line, `user:<id>` a dashboard user
 * (you, or a member of the account by email when known).
 */
export function actorInWords(actor: string, me: { id: string; email: string }, emails: ReadonlyMap<string, string>): string {
  if (actor === 'admin') return 'An operator (admin API)';
  if (actor === 'cli') return 'The command line';
  const user = /^user:(.+)$/.exec(actor)?.[1];
  if (!user) return actor;
  if (user === me.id) return `You (${me.email})`;
  return emails.get(user) ?? `A former member (${user})`;
}

const listNames: Record<string, string> = {
  origins: 'origins',
  ips: 'IP addresses',
  contracts: 'contracts',
  methods: 'methods',
};
const limitUnits: Record<string, string> = { rps: 'requests/s', rpd: 'requests/day', cups: 'compute units/s' };

function graceInWords(seconds: number): string {
  if (seconds <= 2 * 86_400 && seconds % 3600 === 0) return `${seconds / 3600} ${seconds === 3600 ? 'hour' : 'hours'}’ grace`;
  if (seconds % 86_400 === 0) return `${seconds / 86_400} days’ grace`;
  return `${seconds} s of grace`;
}

/** A rotation: the new secret's prefix, and until when the previous one worked. */
function rotationInWords(details: Record<string, unknown>): string[] {
  const words: string[] = [];
  if (typeof details.prefix === 'string') words.push(`new key ${details.prefix}…`);
  const grace = typeof details.grace_s === 'number' ? details.grace_s : undefined;
  const until = typeof details.previous_key_expires_at === 'string' ? details.previous_key_expires_at : undefined;
  if (grace === 0) words.push('the previous key stopped working at once');
  else if (until) {
    const verb = Date.parse(until) > Date.now() ? 'works' : 'worked';
    words.push(`the previous key ${verb} until ${formatDate(until)}${grace ? ` (${graceInWords(grace)})` : ''}`);
  }
  return words;
}

/** `{added: [a], removed: [b]}` (a change's record of a list) as `added a, removed b`. */
function addedRemoved(change: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const verb of ['added', 'removed', 'replaced'])
    if (Array.isArray(change[verb]) && change[verb].length > 0) parts.push(`${verb} ${change[verb].join(', ')}`);
  return parts.join(', ');
}

/** Signed requests: whole at creation (`{required, public_key_ids: [...]}`), as a change after (`{required?, public_key_ids?: {added, ...}}`). */
function jwtInWords(jwt: { required?: boolean; public_key_ids?: unknown }): string {
  const parts: string[] = [];
  const ids = jwt.public_key_ids;
  if (jwt.required !== undefined) parts.push(jwt.required ? 'signed requests required' : 'signed requests not required');
  if (Array.isArray(ids) && ids.length > 0) parts.push(`public keys ${ids.join(', ')}`);
  else if (ids && typeof ids === 'object') parts.push(`public keys ${addedRemoved(ids as Record<string, unknown>)}`);
  return parts.join(', ');
}

/**
 * A creation records the restrictions whole (`origins: [...]`); a change, per kind, what it added and
 * removed (`origins: {added: [...], removed: [...]}`), public keys by id (src/accounts/key-audit.ts).
 */
function restrictionsInWords(value: unknown, action: string): string {
  const none = action === 'restrict' ? 'restrictions reordered' : 'no restrictions';
  if (!value || typeof value !== 'object') return none;
  const parts: string[] = [];
  const given = value as Record<string, unknown>;
  for (const name of fieldOrder(given, ['origins', 'ips', 'contracts', 'methods', 'jwt'])) {
    const entries = given[name];
    const label = listNames[name] ?? name;
    if (name === 'jwt' && entries && typeof entries === 'object') parts.push(jwtInWords(entries));
    else if (Array.isArray(entries) && entries.length > 0) parts.push(`${label}: ${entries.join(', ')}`);
    else if (entries && typeof entries === 'object') parts.push(`${label}: ${addedRemoved(entries as Record<string, unknown>)}`);
  }
  return parts.length ? parts.join('; ') : none;
}

function limitsInWords(value: unknown): string {
  if (!value || typeof value !== 'object') return 'the account’s limits';
  const given = value as Record<string, unknown>;
  const parts = fieldOrder(given, ['rps', 'rpd', 'cups'])
    .map((name) => [name, given[name]] as const)
    .filter(([, limit]) => limit !== null && limit !== undefined)
    .map(([name, limit]) => `${limit} ${limitUnits[name] ?? name}`);
  return parts.length ? `limits ${parts.join(', ')}` : 'the account’s limits';
}

/** The names of `value` in the order given first, then any others (stored JSON keeps no order of its own). */
function fieldOrder(value: Record<string, unknown>, order: string[]): string[] {
  return [...order.filter((name) => name in value), ...Object.keys(value).filter((name) => !order.includes(name))];
}

function valueInWords(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(', ') || 'none';
  if (value && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The event's details (src/accounts/key-audit.ts) as phrases: a creation's name, environment,
 * scopes, restrictions and limits; a change's new values of what it changed (restrictions as what it
 * added and removed); a rotation's new prefix
 * and the previous key's end.
 */
export function detailsInWords(action: string, details: Record<string, unknown> | null | undefined): string[] {
  const given = details ?? {};
  if (action === 'rotate') return rotationInWords(given);
  if (action === 'restrict' && Array.isArray(given.changed) && given.changed.length === 0) return ['saved without a change'];
  const words: string[] = [];
  for (const name of fieldOrder(given, ['name', 'environment', 'scopes', 'restrictions', 'limits'])) {
    const value = given[name];
    if (value === undefined) continue;
    // A change lists what it changed, then each one's new value, which say it already.
    if (name === 'changed') continue;
    if (name === 'restrictions') words.push(restrictionsInWords(value, action));
    else if (name === 'limits') words.push(limitsInWords(value));
    else if (name === 'name') words.push(`name “${valueInWords(value)}”`);
    else if (name === 'environment') words.push(`${valueInWords(value)} environment`);
    else if (name === 'scopes')
      words.push(Array.isArray(value) && value.length === scopes.length ? 'all scopes' : `scopes ${valueInWords(value)}`);
    else words.push(`${name.replaceAll('_', ' ')}: ${valueInWords(value)}`);
  }
  return words;
}
