import { type Address, isAddress } from 'viem';
import { invalidRequest } from '../core/errors.ts';

const maxUint256 = (1n << 256n) - 1n;

/**
 * A token id path parameter: a decimal or 0x-hex uint256.
 * @example parseTokenId('0x0a') // 10n
 */
export function parseTokenId(text: string): bigint {
  const valid = /^(0|[1-9][0-9]{0,77})$/.test(text) || /^0x[0-9a-fA-F]{1,64}$/.test(text);
  const value = valid ? BigInt(text) : -1n;
  if (value < 0n || value > maxUint256) {
    throw invalidRequest('token_id', 'must be an unsigned 256-bit integer, in decimal (e.g. 42) or 0x-prefixed hex');
  }
  return value;
}

/**
 * A 0x-prefixed 20-byte address, returned lower-case (the index's form). Mixed case must pass its
 * EIP-55 checksum, as in the token APIs: a failed checksum almost always means a mistyped address.
 */
export function parseAddress(param: string, text: string): Address {
  if (!/^0x[0-9a-fA-F]{40}$/.test(text)) {
    throw invalidRequest(param, `'${text.slice(0, 64)}' is not a 0x-prefixed address of 40 hex digits`);
  }
  const lower = text.toLowerCase();
  const upper = `0x${text.slice(2).toUpperCase()}`;
  if (text !== lower && text !== upper && !isAddress(text, { strict: true })) {
    throw invalidRequest(param, `'${text}' fails its EIP-55 checksum (send it in lower case to skip the check)`);
  }
  return lower as Address;
}
