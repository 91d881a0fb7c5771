import { BlockList, isIP } from 'node:net';

/** One address (`203.0.113.7`, `2001:db8::1`) or CIDR range (`203.0.113.0/24`, `2001:db8::/32`). */
export interface AddressRange {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
  readonly prefix: number;
}

/** Why an entry is not a range: not an address at all, or a prefix length past the family's bits. */
type RangeProblem = { problem: 'address'; address: string } | { problem: 'prefix'; bits: 32 | 128 };

/**
 * The range an entry of an address list names (settings `trust_proxy`, a key's `restrictions.ips`),
 * or why it names none. A zone index (`fe80::1%eth0`) names an interface of one host, never how a
 * client address arrives: refused.
 */
export function parseAddressRange(text: string): AddressRange | RangeProblem {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const version = address.includes('%') ? 0 : isIP(address);
  if (version === 0) return { problem: 'address', address };
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const bits = version === 4 ? 32 : 128;
  if (slash === -1) return { address, family, prefix: bits };
  const prefixText = text.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > bits) return { problem: 'prefix', bits };
  return { address, family, prefix };
}

/**
 * What is wrong with a `trust_proxy` entry, or undefined when it is an address or CIDR range.
 * @example addressRangeProblem('10.0.0.0/33') // 'the prefix length must be 0 to 32 for an IPv4 range'
 */
export function addressRangeProblem(text: string): string | undefined {
  const parsed = parseAddressRange(text);
  if (!('problem' in parsed)) return undefined;
  if (parsed.problem === 'address') return `'${parsed.address}' is not an IPv4 or IPv6 address`;
  return `the prefix length must be 0 to ${parsed.bits} for an ${parsed.bits === 32 ? 'IPv4' : 'IPv6'} range`;
}

/**
 * A key's `restrictions.ips` entry as stored (`2001:DB8::/32` -> `2001:db8::/32`), or what is wrong with it.
 * @example canonicalAddressRange('10.0.0.0/33') // { problem: "'10.0.0.0/33' is not a CIDR range: the prefix length must be 0 to 32" }
 */
export function canonicalAddressRange(entry: string): { value: string } | { problem: string } {
  const parsed = parseAddressRange(entry);
  if ('problem' in parsed) {
    if (parsed.problem === 'prefix')
      return { problem: `'${entry}' is not a CIDR range: the prefix length must be 0 to ${parsed.bits}` };
    return { problem: `'${entry}' is not an IP address or CIDR range (as 203.0.113.0/24 or 2001:db8::/32)` };
  }
  const address = parsed.address.toLowerCase();
  return { value: entry.includes('/') ? `${address}/${parsed.prefix}` : address };
}

/**
 * A `node:net` BlockList of the entries (already validated; a bad one is skipped). It matches IPv4
 * addresses also in their IPv4-mapped IPv6 form (`::ffff:127.0.0.1`).
 */
export function addressRangeList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const range = parseAddressRange(entry);
    if ('problem' in range) continue;
    list.addSubnet(range.address, range.prefix, range.family);
  }
  return list;
}

/** Whether `address` (v4, v6 or IPv4-mapped) is in `list`. */
export function inAddressRangeList(list: BlockList, address: string): boolean {
  const version = isIP(address);
  return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
}
