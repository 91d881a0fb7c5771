import { type Address, isAddress } from 'viem';
import { invalidRequest } from '../core/errors.ts';

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

/**
 * The one rule for an address the API is given (path, query or body): 0x and 40 hex digits, in lower
 * case, upper case, or mixed case that passes its EIP-55 checksum (viem's `isAddress` strict). A failed
 * checksum almost always means a mistyped address, so it is refused rather than read as lower case.
 * Throws a 400 naming `name` for a mixed-case value whose checksum fails; the caller checked the shape.
 */
export function assertAddressChecksum(name: string, value: string): void {
  const lower = value.toLowerCase();
  const upper = `0x${value.slice(2).toUpperCase()}`;
  if (value !== lower && value !== upper && !isAddress(value, { strict: true })) {
    throw invalidRequest(name, `'${value}' fails its EIP-55 checksum (send it in lower case to skip the check)`);
  }
}

/** An address input (see `assertAddressChecksum`), lower-cased. */
export function parseAddressParam(name: string, value: string): Address {
  if (!addressPattern.test(value))
    throw invalidRequest(name, `'${value.slice(0, 64)}' is not a 0x-prefixed address of 40 hex digits`);
  assertAddressChecksum(name, value);
  return value.toLowerCase() as Address;
}
