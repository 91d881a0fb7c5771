// The rules of a gas policy (src/sponsorship/policy-rules.ts) as form fields.
import { listText, numberOrText, parseList } from '../ui/lists.ts';

export type RuleKind = 'usd' | 'integer' | 'list' | 'time';

export const ruleFields: { name: string; label: string; kind: RuleKind; hint: string }[] = [
  { name: 'max_gas_usd', label: 'Max gas, total (USD)', kind: 'usd', hint: 'What the policy sponsors in all, e.g. 250.00.' },
  { name: 'max_gas_usd_per_op', label: 'Max gas per operation (USD)', kind: 'usd', hint: 'e.g. 0.50' },
  { name: 'max_gas_usd_per_sender', label: 'Max gas per sender (USD)', kind: 'usd', hint: 'e.g. 5.00' },
  { name: 'max_ops', label: 'Max operations', kind: 'integer', hint: 'In all.' },
  { name: 'max_ops_per_sender', label: 'Max operations per sender', kind: 'integer', hint: 'In all, per sender.' },
  { name: 'max_per_user_per_day', label: 'Max operations per sender per day', kind: 'integer', hint: 'Per UTC day.' },
  { name: 'allowed_contracts', label: 'Allowed contracts', kind: 'list', hint: 'One address per line; empty: any contract.' },
  {
    name: 'allowed_methods',
    label: 'Allowed methods',
    kind: 'list',
    hint: 'One per line: a selector (0xa9059cbb) or a signature (transfer(address,uint256)).',
  },
  { name: 'allowed_senders', label: 'Allowed senders', kind: 'list', hint: 'One wallet address per line; empty: anyone.' },
  { name: 'blocked_senders', label: 'Blocked senders', kind: 'list', hint: 'Refused even when also allowed.' },
  {
    name: 'allowed_factories',
    label: 'Allowed factories',
    kind: 'list',
    hint: 'One factory address per line: an op that deploys its wallet must use one; empty: any.',
  },
  { name: 'start_time', label: 'Starts', kind: 'time', hint: 'Your local time; empty: at once.' },
  { name: 'end_time', label: 'Ends', kind: 'time', hint: 'Your local time; empty: never.' },
  { name: 'sponsorship_expiry_s', label: 'Sponsorship valid for (seconds)', kind: 'integer', hint: '60 to 86,400; default 600.' },
];

export type RuleValues = Record<string, string>;

/** `2026-11-24T12:00:00Z` as a datetime-local value in this browser's time zone. */
function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

export function valuesOf(rules: Record<string, unknown>): RuleValues {
  const values: RuleValues = {};
  for (const field of ruleFields) {
    const value = rules[field.name];
    if (value === undefined || value === null) continue;
    if (field.kind === 'list') values[field.name] = listText(value);
    else if (field.kind === 'time') values[field.name] = toLocalInput(String(value));
    else values[field.name] = String(value);
  }
  const rate = rules.rate_limit as { ops?: number; per_seconds?: number } | undefined;
  if (rate) {
    values['rate_limit.ops'] = String(rate.ops ?? '');
    values['rate_limit.per_seconds'] = String(rate.per_seconds ?? '');
  }
  return values;
}

/** The rules as the API takes them; what does not parse is sent as typed, so the API's 400 names it. */
export function rulesOf(values: RuleValues): Record<string, unknown> {
  const rules: Record<string, unknown> = {};
  for (const field of ruleFields) {
    const text = values[field.name]?.trim() ?? '';
    if (!text) continue;
    if (field.kind === 'usd') rules[field.name] = text;
    else if (field.kind === 'integer') rules[field.name] = numberOrText(text);
    else if (field.kind === 'list') rules[field.name] = parseList(text);
    else {
      const date = new Date(text);
      rules[field.name] = Number.isNaN(date.getTime()) ? text : date.toISOString();
    }
  }
  const ops = values['rate_limit.ops']?.trim() ?? '';
  const per = values['rate_limit.per_seconds']?.trim() ?? '';
  if (ops || per) rules.rate_limit = { ops: numberOrText(ops) ?? null, per_seconds: numberOrText(per) ?? null };
  return rules;
}

/** A one-line summary of the rules for the list. */
export function summary(rules: Record<string, unknown>): string {
  const parts: string[] = [];
  if (rules.max_gas_usd) parts.push(`$${rules.max_gas_usd} total`);
  if (rules.max_gas_usd_per_op) parts.push(`$${rules.max_gas_usd_per_op}/op`);
  if (rules.max_ops) parts.push(`${rules.max_ops} ops`);
  if (Array.isArray(rules.allowed_contracts)) parts.push(`${rules.allowed_contracts.length} contracts`);
  if (Array.isArray(rules.allowed_senders)) parts.push(`${rules.allowed_senders.length} senders`);
  if (rules.rate_limit) parts.push('rate limited');
  return parts.join(' · ') || 'no limits';
}
