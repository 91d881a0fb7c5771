import { type Address, isAddress } from 'viem';
import { invalidRequest } from '../core/errors.ts';

const addressPattern = /^0x[0-9a-fA-F]{40}$/;

/**
 * A path parameter that must be an address, lower-cased. Mixed case must pass its EIP-55 checksum:
 * a failed checksum almost always means a mistyped address.
 */
export function parseAddressParam(name: string, value: string): Address {
  if (!addressPattern.test(value))
    throw invalidRequest(name, `'${value.slice(0, 64)}' is not a 0x-prefixed address of 40 hex digits`);
  const lower = value.toLowerCase();
  const upper = `0x${value.slice(2).toUpperCase()}`;
  if (value !== lower && value !== upper && !isAddress(value, { strict: true })) {
    throw invalidRequest(name, `'${value}' fails its EIP-55 checksum (send it in lower case to skip the check)`);
  }
  return lower as Address;
}
