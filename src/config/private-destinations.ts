import { addressRangeList, inAddressRangeList, parseAddressRange } from '../core/address-ranges.ts';

/**
 * The setting `webhooks.private_destinations`: address ranges (CIDR) that webhooks may be sent to
 * although they are private, in any mode (internal receivers on a private network).
 */
export interface PrivateDestinations {
  /** Whether `ip` (IPv4 or IPv6 text, IPv4-mapped included) is inside one of the ranges. */
  allows(ip: string): boolean;
  readonly size: number;
}

/**
 * Whether `text` is a CIDR range or one address, parsed as every address list of the settings is.
 * @example isAddressRange('10.231.0.0/24') // true
 */
export function isAddressRange(text: string): boolean {
  return !('problem' in parseAddressRange(text.trim()));
}

/** The ranges of already validated CIDR strings (the config loader names a bad one). */
export function privateDestinations(cidrs: readonly string[] = []): PrivateDestinations {
  const bad = cidrs.find((text) => !isAddressRange(text));
  if (bad !== undefined) throw new Error(`not a CIDR: ${bad}`);
  const list = addressRangeList(cidrs.map((text) => text.trim()));
  return {
    size: cidrs.length,
    allows: (ip) => cidrs.length > 0 && inAddressRangeList(list, ip.replace(/^\[|\]$/g, '')),
  };
}
