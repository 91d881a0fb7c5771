import { BlockList, isIP } from 'node:net';

/** One address (`203.0.113.7`, `2001:db8::1`) or CIDR range (`203.0.113.0/24`, `2001:db8::/32`). */
export interface AddressRange {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
  readonly prefix: number;
}

/**
 * The range an entry of an address list names (settings `trust_proxy`, a key's `restrictions.ips`),
 * or what is wrong with it, e.g. for `10.0.0.0/33`: 'the prefix length must be 0 to 32 for an IPv4 range'.
 */
export function parseAddressRange(text: string): AddressRange | { problem: string } {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const version = isIP(address);
  if (version === 0) return { problem: `'${address}' is not an IPv4 or IPv6 address` };
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (slash === -1) return { address, family, prefix: max };
  const prefixText = text.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > max) {
    return { problem: `the prefix length must be 0 to ${max} for an ${version === 4 ? 'IPv4' : 'IPv6'} range` };
  }
  return { address, family, prefix };
}

/** What is wrong with an address list entry, or undefined when it is an address or CIDR range. */
export function addressRangeProblem(text: string): string | undefined {
  const parsed = parseAddressRange(text);
  return 'problem' in parsed ? parsed.problem : undefined;
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
