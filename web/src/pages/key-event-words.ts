// A key's audit events (api_key_events) in words: what was done, by whom, and what changed.
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
  if (seconds === 0) return 'the previous key stopped working at once';
  if (seconds % 86_400 === 0) return `the previous key kept for ${seconds / 86_400} ${seconds === 86_400 ? 'day' : 'days'}`;
  if (seconds % 3600 === 0) return `the previous key kept for ${seconds / 3600} ${seconds === 3600 ? 'hour' : 'hours'}`;
  return `the previous key kept for ${seconds} s`;
}

function restrictionsInWords(value: unknown): string {
  if (!value || typeof value !== 'object') return 'no restrictions';
  const parts: string[] = [];
  for (const [name, entries] of Object.entries(value as Record<string, unknown>)) {
    if (Array.isArray(entries) && entries.length > 0) parts.push(`${listNames[name] ?? name}: ${entries.join(', ')}`);
    else if (name === 'jwt' && entries && typeof entries === 'object') {
      const jwt = entries as { required?: boolean; public_keys?: { id: string }[] };
      const ids = (jwt.public_keys ?? []).map((key) => key.id).join(', ');
      parts.push(`${jwt.required ? 'signed requests required' : 'signed requests optional'}${ids ? ` (keys ${ids})` : ''}`);
    }
  }
  return parts.length ? parts.join('; ') : 'no restrictions';
}

function limitsInWords(value: unknown): string {
  if (!value || typeof value !== 'object') return 'the account’s limits';
  const parts = Object.entries(value as Record<string, unknown>)
    .filter(([, limit]) => limit !== null && limit !== undefined)
    .map(([name, limit]) => `${limit} ${limitUnits[name] ?? name}`);
  return parts.length ? `limits ${parts.join(', ')}` : 'the account’s limits';
}

function valueInWords(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join(', ') || 'none';
  if (value && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** One phrase per thing the event's details record, in the order they come. */
export function detailsInWords(details: Record<string, unknown> | null | undefined): string[] {
  const words: string[] = [];
  for (const [name, value] of Object.entries(details ?? {})) {
    if (value === undefined) continue;
    if (name === 'restrictions') words.push(restrictionsInWords(value));
    else if (name === 'limits') words.push(limitsInWords(value));
    else if (name === 'grace_s' && typeof value === 'number') words.push(graceInWords(value));
    else if (name === 'previous_key_expires_at' && typeof value === 'string')
      words.push(`previous key works until ${formatDate(value)}`);
    else if (name === 'name') words.push(`name “${valueInWords(value)}”`);
    else if (name === 'environment') words.push(`${valueInWords(value)} environment`);
    else if (name === 'scopes') words.push(`scopes ${valueInWords(value)}`);
    else if (name === 'changed' || name === 'fields') words.push(`changed ${valueInWords(value)}`);
    else words.push(`${name.replaceAll('_', ' ')}: ${valueInWords(value)}`);
  }
  return words;
}
