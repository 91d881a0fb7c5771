import { isIP } from 'node:net';

/** Why an address may not be fetched from, in the words a `metadata_error` uses. */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

interface Range {
  readonly base: readonly number[];
  readonly bits: number;
  readonly kind: Exclude<AddressClass, 'public'>;
}

const v4 = (a: number, b: number, c: number, d: number, bits: number, kind: Range['kind']): Range => ({
  base: [a, b, c, d],
  bits,
  kind,
});

// RFC 6890 special-purpose IPv4 ranges that must never be reached from a metadata URI.
const ipv4Ranges: readonly Range[] = [
  v4(0, 0, 0, 0, 8, 'unspecified'),
  v4(10, 0, 0, 0, 8, 'private'),
  v4(100, 64, 0, 0, 10, 'shared (CGNAT)'),
  v4(127, 0, 0, 0, 8, 'loopback'),
  v4(169, 254, 0, 0, 16, 'link-local'),
  v4(172, 16, 0, 0, 12, 'private'),
  v4(192, 0, 0, 0, 24, 'reserved'),
  v4(192, 0, 2, 0, 24, 'reserved'),
  v4(192, 88, 99, 0, 24, 'reserved'),
  v4(192, 168, 0, 0, 16, 'private'),
  v4(198, 18, 0, 0, 15, 'reserved'),
  v4(198, 51, 100, 0, 24, 'reserved'),
  v4(203, 0, 113, 0, 24, 'reserved'),
  v4(224, 0, 0, 0, 4, 'multicast'),
  v4(240, 0, 0, 0, 4, 'reserved'),
];

const v6 = (prefix: number[], bits: number, kind: Range['kind']): Range => ({
  base: [...prefix, ...new Array(16 - prefix.length).fill(0)],
  bits,
  kind,
});

const ipv6Ranges: readonly Range[] = [
  v6([], 128, 'unspecified'),
  v6([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'),
  v6([0xfe, 0x80], 10, 'link-local'),
  v6([0xfe, 0xc0], 10, 'private'),
  v6([0xfc], 7, 'unique-local'),
  v6([0xff], 8, 'multicast'),
  v6([0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'reserved'),
  v6([0x20, 0x01, 0x0d, 0xb8], 32, 'reserved'),
  // Teredo hides its IPv4 end point (obfuscated): refuse rather than decode.
  v6([0x20, 0x01, 0, 0], 32, 'reserved'),
];

function inRange(bytes: readonly number[], range: Range): boolean {
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] as number) & mask) !== ((range.base[i] as number) & mask)) return false;
  }
  return true;
}

function parseIpv4(text: string): number[] {
  return text.split('.').map(Number);
}

/** The 16 bytes of an IPv6 address (with '::' and a trailing dotted IPv4 part expanded). */
function parseIpv6(text: string): number[] {
  const unzoned = text.split('%')[0] as string;
  let groups: string[];
  const tailV4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(unzoned);
  let head = unzoned;
  const tail: number[] = [];
  if (tailV4) {
    head = unzoned.slice(0, -tailV4[1]!.length);
    tail.push(...parseIpv4(tailV4[1]!));
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const want = (16 - tail.length) / 2;
  if (head.includes('::')) {
    const [left, right] = head.split('::') as [string, string];
    const l = left ? left.split(':') : [];
    const r = right ? right.split(':') : [];
    groups = [...l, ...new Array(want - l.length - r.length).fill('0'), ...r];
  } else {
    groups = head ? head.split(':') : [];
  }
  const bytes: number[] = [];
  for (const group of groups) {
    const value = Number.parseInt(group, 16);
    bytes.push(value >> 8, value & 0xff);
  }
  return [...bytes, ...tail];
}

function classifyIpv4(bytes: readonly number[]): AddressClass {
  return ipv4Ranges.find((range) => inRange(bytes, range))?.kind ?? 'public';
}

/** IPv4 addresses carried inside IPv6 forms: mapped, compatible, NAT64 and 6to4. */
function embeddedIpv4(bytes: readonly number[]): number[] | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  if (zeros(0, 12)) return bytes.slice(12);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return bytes.slice(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return undefined;
}

/**
 * What kind of address `ip` is (IPv4 or IPv6 text). IPv6 forms that embed an IPv4 address
 * (`::ffff:10.0.0.1`, `64:ff9b::a00:1`, `2002:0a00:0001::`) are judged by the IPv4 address inside.
 * @example classifyAddress('::ffff:127.0.0.1') // 'loopback'
 */
export function classifyAddress(ip: string): AddressClass {
  const family = isIP(ip.split('%')[0] as string);
  if (family === 4) return classifyIpv4(parseIpv4(ip));
  if (family !== 6) return 'reserved';
  const bytes = parseIpv6(ip);
  const special = ipv6Ranges.find((range) => inRange(bytes, range));
  if (special) return special.kind;
  const inner = embeddedIpv4(bytes);
  return inner ? classifyIpv4(inner) : 'public';
}

/**
 * Why `ip` may not be fetched from, or undefined when it may. Only public addresses pass, except
 * that development mode (the embedded devnet) also allows loopback.
 * @example refusedAddressReason('10.0.0.1', 'production') // 'address 10.0.0.1 is private'
 */
export function refusedAddressReason(ip: string, mode: 'development' | 'production'): string | undefined {
  const kind = classifyAddress(ip);
  if (kind === 'public') return undefined;
  if (kind === 'loopback' && mode === 'development') return undefined;
  return `address ${ip} is ${kind}`;
}
