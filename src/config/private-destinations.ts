import { addressBytes } from '../core/address-policy.ts';

/**
 * The setting `webhooks.private_destinations`: address ranges (CIDR) that webhooks may be sent to
 * although they are private, in any mode (internal receivers on a private network).
 */
export interface PrivateDestinations {
  /** Whether `ip` (IPv4 or IPv6 text) is inside one of the ranges. */
  allows(ip: string): boolean;
  readonly size: number;
}

interface Cidr {
  readonly bytes: readonly number[];
  readonly bits: number;
}

/**
 * `10.231.0.0/24` or `fd00::/8` as a range, or undefined when it is not a CIDR (an address without
 * `/bits` is one address).
 * @example parseCidr('10.231.0.0/24') // { bytes: [10, 231, 0, 0], bits: 24 }
 */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', bitsText, ...rest] = text.trim().split('/');
  if (rest.length > 0 || address.includes('%')) return undefined;
  const bytes = addressBytes(address);
  if (!bytes) return undefined;
  const max = bytes.length * 8;
  if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = bitsText === undefined ? max : Number(bitsText);
  return bits <= max ? { bytes, bits } : undefined;
}

function contains(range: Cidr, bytes: readonly number[]): boolean {
  if (bytes.length !== range.bytes.length) return false;
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] as number) & mask) !== ((range.bytes[i] as number) & mask)) return false;
  }
  return true;
}

/** The ranges of already validated CIDR strings (the config loader names a bad one). */
export function privateDestinations(cidrs: readonly string[] = []): PrivateDestinations {
  const ranges = cidrs.map((text) => {
    const range = parseCidr(text);
    if (!range) throw new Error(`not a CIDR: ${text}`);
    return range;
  });
  return {
    size: ranges.length,
    allows(ip) {
      if (ranges.length === 0) return false;
      const bytes = addressBytes(ip.replace(/^\[|\]$/g, ''));
      return bytes !== undefined && ranges.some((range) => contains(range, bytes));
    },
  };
}
