import { invalidRequest } from '../core/errors.ts';

const maxUint256 = (1n << 256n) - 1n;

/**
 * A token id path parameter: a decimal or 0x-hex uint256.
 * @example parseTokenId('0x0a') // 10n
 */
export function parseTokenId(text: string, param = 'token_id'): bigint {
  const valid = /^(0|[1-9][0-9]{0,77})$/.test(text) || /^0x[0-9a-fA-F]{1,64}$/.test(text);
  const value = valid ? BigInt(text) : -1n;
  if (value < 0n || value > maxUint256) {
    throw invalidRequest(param, 'must be an unsigned 256-bit integer, in decimal (e.g. 42) or 0x-prefixed hex');
  }
  return value;
}
