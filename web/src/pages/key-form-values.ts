// An API key's name, restrictions and limits (src/keys/key-settings.ts) as form values, the PATCH
// body made from them, and the API's 400 placed at the field it is about, in words.
import { type Scope, scopes } from '../../../src/auth/scopes.ts';
import type { ApiError } from '../api/client.ts';
import type { ApiKey, JwtAlgorithm, KeyRestrictions } from '../api/types.ts';

export type ListName = 'origins' | 'ips' | 'contracts' | 'methods';
export type LimitName = 'rps' | 'rpd' | 'cups';

export const listFields: { name: ListName; label: string; hint: string; placeholder: string }[] = [
  {
    name: 'origins',
    label: 'Allowed origins',
    hint: 'Websites whose pages may use the key, one per line, with the scheme; https://*.example.org allows its subdomains. Empty: any origin.',
    placeholder: 'https://app.example.com\nhttps://*.example.org',
  },
  {
    name: 'ips',
    label: 'Allowed IP addresses',
    hint: 'Client addresses or CIDR ranges, IPv4 or IPv6, one per line. Empty: any address.',
    placeholder: '203.0.113.0/24\n2001:db8::/32\n127.0.0.1',
  },
  {
    name: 'contracts',
    label: 'Allowed contracts',
    hint: 'Contract addresses the key’s calls may touch (eth_call’s to, eth_getLogs’ address), one per line. Empty: any contract.',
    placeholder: '0x…',
  },
  {
    name: 'methods',
    label: 'Allowed JSON-RPC methods',
    hint: 'Method names, one per line. Empty: every method the key’s scopes allow.',
    placeholder: 'eth_call\neth_getLogs\neth_blockNumber',
  },
];

export const limitFields: { name: LimitName; label: string; unit: string }[] = [
  { name: 'rps', label: 'Requests per second', unit: 'requests per second' },
  { name: 'rpd', label: 'Requests per day', unit: 'requests per day' },
  { name: 'cups', label: 'Compute units per second', unit: 'compute units per second' },
];

export interface PublicKeyValues {
  id: string;
  alg: JwtAlgorithm;
  pem: string;
}

export interface KeyFormValues {
  name: string;
  scopes: ReadonlySet<Scope>;
  lists: Record<ListName, string>;
  jwtRequired: boolean;
  publicKeys: PublicKeyValues[];
  limits: Record<LimitName, string>;
}

export function formValuesOf(key: ApiKey): KeyFormValues {
  const restrictions = key.restrictions ?? {};
  const limits = key.limits ?? {};
  const text = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));
  return {
    name: key.name,
    scopes: new Set(key.scopes),
    lists: {
      origins: (restrictions.origins ?? []).join('\n'),
      ips: (restrictions.ips ?? []).join('\n'),
      contracts: (restrictions.contracts ?? []).join('\n'),
      methods: (restrictions.methods ?? []).join('\n'),
    },
    jwtRequired: restrictions.jwt?.required ?? false,
    publicKeys: (restrictions.jwt?.public_keys ?? []).map((entry) => ({ ...entry })),
    limits: { rps: text(limits.rps), rpd: text(limits.rpd), cups: text(limits.cups) },
  };
}

/** For each list, the line (1-based) each entry sent came from: a 400 names the entry by its index. */
export type SentLines = Record<ListName, number[]>;

/** The entries of a one-per-line list, blank lines left out, with the line each came from. */
export function linesOf(text: string): { entries: string[]; lines: number[] } {
  const entries: string[] = [];
  const lines: number[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    const entry = line.trim();
    if (!entry) continue;
    entries.push(entry);
    lines.push(index + 1);
  }
  return { entries, lines };
}

/**
 * The PATCH body: the name and scopes, every list (empty ones left out: no restriction of that kind), signed requests when
 * required or given keys, the limits typed (a value that is not a whole number is sent as typed, so
 * the API's 400 names it).
 */
export function patchOf(values: KeyFormValues): {
  body: { name: string; scopes: Scope[]; restrictions: KeyRestrictions; limits: Record<string, unknown> };
  lines: SentLines;
} {
  const restrictions: KeyRestrictions = {};
  const lines = {} as SentLines;
  for (const { name } of listFields) {
    const parsed = linesOf(values.lists[name]);
    lines[name] = parsed.lines;
    if (parsed.entries.length > 0) restrictions[name] = parsed.entries;
  }
  const publicKeys = values.publicKeys.map((entry) => ({ id: entry.id.trim(), alg: entry.alg, pem: entry.pem.trim() }));
  if (values.jwtRequired || publicKeys.length > 0) restrictions.jwt = { required: values.jwtRequired, public_keys: publicKeys };
  const limits: Record<string, unknown> = {};
  for (const { name } of limitFields) {
    const text = values.limits[name].trim();
    if (text) limits[name] = /^\d+$/.test(text) ? Number(text) : text;
  }
  const chosen = scopes.filter((scope) => values.scopes.has(scope));
  return { body: { name: values.name.trim(), scopes: chosen, restrictions, limits }, lines };
}

/** `restrictions.ips.1` (the schema's form) as `restrictions.ips[1]` (the service's own checks' form). */
export function normalizedParam(param: string): string {
  return param.replace(/\.(\d+)(?=\.|$)/g, '[$1]');
}

/** What the API said of the parameter, after its name: `invalid body 'x': must be …` reads `must be …`. */
function detailOf(error: ApiError): string {
  if (/^missing required /.test(error.message)) return 'required';
  const match = /^(?:invalid|unknown) [a-z ]*?'[^']+':? ?(.*)$/s.exec(error.message);
  return match?.[1] || error.message;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const sentence = (text: string) => {
  const upper = capitalized(text.trim());
  return /[.!?]$/.test(upper) ? upper : `${upper}.`;
};

/**
 * The form field a 400 is about and its message in words, or undefined when it names none of the
 * form's fields (the page shows it above the form): `restrictions.ips[1]` with the IPs typed on lines
 * 1 and 3 reads `Line 3: …` next to the IP field; `restrictions.jwt.public_keys[0].pem` reads next
 * to the first public key's PEM.
 * Field keys: `name`, `scopes`, a list name, `jwt`, `publicKeys.<i>`, `publicKeys.<i>.<id|alg|pem>`, a limit
 * name, `limits`.
 */
export function placedError(
  error: ApiError | undefined,
  lines: SentLines | undefined,
): { field: string; message: string } | undefined {
  if (!error?.param || error.status !== 400) return undefined;
  const param = normalizedParam(error.param);
  const detail = detailOf(error);
  const list = /^restrictions\.(origins|ips|contracts|methods)(?:\[(\d+)\])?/.exec(param);
  if (list) {
    const name = list[1] as ListName;
    if (list[2] === undefined) return { field: name, message: sentence(detail) };
    const line = lines?.[name]?.[Number(list[2])] ?? Number(list[2]) + 1;
    return { field: name, message: `Line ${line}: ${sentence(detail)}` };
  }
  const publicKey = /^restrictions\.jwt\.public_keys\[(\d+)\](?:\.(id|alg|pem))?/.exec(param);
  if (publicKey) {
    const field = publicKey[2] ? `publicKeys.${publicKey[1]}.${publicKey[2]}` : `publicKeys.${publicKey[1]}`;
    return { field, message: sentence(detail) };
  }
  if (/^restrictions\.jwt/.test(param)) return { field: 'jwt', message: sentence(detail) };
  const limit = /^limits\.(rps|rpd|cups)$/.exec(param);
  if (limit?.[1]) return { field: limit[1], message: sentence(detail) };
  if (param === 'limits') return { field: 'limits', message: sentence(detail) };
  const blank = detail === 'required' || /^must not be (?:empty|blank)$/.test(detail);
  if (param === 'name') return { field: 'name', message: blank ? 'Give the key a name.' : sentence(detail) };
  if (param === 'scopes') return { field: 'scopes', message: blank ? 'Choose at least one scope.' : sentence(detail) };
  if (param.startsWith('scopes[')) return { field: 'scopes', message: sentence(detail) };
  return undefined;
}
