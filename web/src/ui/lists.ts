/** Rows per page of the paged lists (webhooks, deliveries, wallets, gas policies). */
export const listPageSize = 25;

/** Entries typed one per line or separated by commas or spaces. */
export function parseList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter(Boolean);
}

export function listText(value: unknown): string {
  if (Array.isArray(value)) return value.map(String).join('\n');
  return typeof value === 'string' ? value : '';
}

/** A number typed in a field: the number when it is one, else the text as typed (the API names what is wrong). */
export function numberOrText(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  return /^-?\d+(\.\d+)?$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** A copy of `set` with `value` taken out when it is in, put in when it is not (a checkbox's or a row's toggle). */
export function toggled<T>(set: ReadonlySet<T>, value: T): Set<T> {
  const next = new Set(set);
  if (next.has(value)) next.delete(value);
  else next.add(value);
  return next;
}
